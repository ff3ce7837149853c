/*
 * ui_term.c - taking the terminal over and giving it back, including from a
 * signal handler.
 *
 * The one exception to "no global mutable state": a signal handler has no
 * argument to find the dashboard through, and a crash must still leave the
 * person's terminal usable. So the state a restore needs (the terminal's
 * descriptor and saved mode, the real stderr, the wake-up pipe) lives in one
 * static, set once by ui__terminal_take and cleared by the give-back; there
 * is one controlling terminal, so at most one dashboard holds it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "ui/ui_internal.h"

/* Leave the alternate screen, show the cursor, reset styles. */
#define LEAVE "\033[0m\033[?25h\033[?1049l"
/* Enter the alternate screen, hide the cursor, clear it. */
#define ENTER "\033[?1049h\033[?25l\033[2J\033[H"

static const int restored_signals[] = {SIGSEGV, SIGBUS,  SIGFPE, SIGILL, SIGABRT,
                                       SIGINT,  SIGTERM, SIGHUP, SIGQUIT};
#define RESTORED_COUNT (sizeof(restored_signals) / sizeof(restored_signals[0]))

static struct {
    volatile sig_atomic_t held; /* 1 while a dashboard holds the terminal */
    int tty_fd;
    int saved_stderr;
    int wake_fd;
    struct termios mode;
    struct sigaction old[RESTORED_COUNT];
    struct sigaction old_winch;
} term;

void ui__write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) {
                continue;
            }
            return;
        }
        text += n;
        len -= (size_t)n;
    }
}

void ui_terminal_emergency_restore(void)
{
    if (!__atomic_exchange_n(&term.held, 0, __ATOMIC_ACQ_REL)) {
        return;
    }
    int saved_errno = errno;
    ui__write_all(term.tty_fd, LEAVE, sizeof(LEAVE) - 1);
    tcsetattr(term.tty_fd, TCSAFLUSH, &term.mode);
    if (term.saved_stderr >= 0) {
        dup2(term.saved_stderr, STDERR_FILENO);
    }
    errno = saved_errno;
}

/* on_fatal restores the terminal, then lets the signal do what it did
 * before: SA_RESETHAND put the old action back, and raising it again once
 * this handler returns takes that action. */
static void on_fatal(int sig)
{
    ui_terminal_emergency_restore();
    for (size_t i = 0; i < RESTORED_COUNT; i++) {
        if (restored_signals[i] == sig) {
            sigaction(sig, &term.old[i], NULL);
        }
    }
    raise(sig);
}

static void on_winch(int sig)
{
    (void)sig;
    int saved_errno = errno;
    char byte = 'w';
    if (term.wake_fd >= 0) {
        ssize_t n = write(term.wake_fd, &byte, 1);
        (void)n; /* a full pipe already holds a wake-up */
    }
    errno = saved_errno;
}

static void install_handlers(void)
{
    struct sigaction sa = {.sa_handler = on_fatal, .sa_flags = SA_RESETHAND | SA_NODEFER};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < RESTORED_COUNT; i++) {
        sigaction(restored_signals[i], &sa, &term.old[i]);
    }
    struct sigaction winch = {.sa_handler = on_winch, .sa_flags = SA_RESTART};
    sigemptyset(&winch.sa_mask);
    sigaction(SIGWINCH, &winch, &term.old_winch);
}

int ui__terminal_take(int tty_fd, int saved_stderr, int wake_fd)
{
    if (__atomic_load_n(&term.held, __ATOMIC_ACQUIRE)) {
        return -EBUSY;
    }
    struct termios mode;
    if (tcgetattr(tty_fd, &mode) != 0) {
        return -errno;
    }
    term.tty_fd = tty_fd;
    term.saved_stderr = saved_stderr;
    term.wake_fd = wake_fd;
    term.mode = mode;
    /* Keys arrive one at a time and are not echoed; Ctrl-C still raises SIGINT. */
    mode.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    mode.c_cc[VMIN] = 0;
    mode.c_cc[VTIME] = 0;
    if (tcsetattr(tty_fd, TCSAFLUSH, &mode) != 0) {
        return -errno;
    }
    __atomic_store_n(&term.held, 1, __ATOMIC_RELEASE);
    install_handlers();
    /* exit() from anywhere (a library, a fatal path) runs this too; it does nothing once the
     * terminal is back. */
    static bool at_exit;
    if (!at_exit) {
        at_exit = atexit(ui_terminal_emergency_restore) == 0;
    }
    ui__write_all(tty_fd, ENTER, sizeof(ENTER) - 1);
    return 0;
}

void ui__terminal_give_back(void)
{
    bool held = __atomic_load_n(&term.held, __ATOMIC_ACQUIRE);
    ui_terminal_emergency_restore();
    if (!held) {
        return;
    }
    for (size_t i = 0; i < RESTORED_COUNT; i++) {
        sigaction(restored_signals[i], &term.old[i], NULL);
    }
    sigaction(SIGWINCH, &term.old_winch, NULL);
    term.wake_fd = -1;
}
