# Shared build settings: warnings, sanitizers, and the one-library-per-module helper.

# _GNU_SOURCE for accept4, pthread affinity and the Linux socket options the engine uses.
add_compile_definitions(_GNU_SOURCE RINGPERF_VERSION="${PROJECT_VERSION}")
add_compile_options(-Wall -Wextra -Wshadow -Wmissing-prototypes -Wformat=2 -Wvla
                    -Wstrict-prototypes -Wpointer-arith -fno-common)
if(RINGPERF_WERROR)
    add_compile_options(-Werror)
endif()
if(RINGPERF_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                        -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined)
endif()
if(RINGPERF_TSAN)
    add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
    add_link_options(-fsanitize=thread)
endif()

# ringperf_module(NAME SOURCES a.c b.c DEPS other_module ... LIBS system_lib ...)
# One static library per module, named ringperf_<NAME>. Headers are included as
# "<module>/<module>.h" from the project root.
function(ringperf_module name)
    cmake_parse_arguments(M "" "" "SOURCES;DEPS;LIBS" ${ARGN})
    add_library(ringperf_${name} STATIC ${M_SOURCES})
    target_include_directories(ringperf_${name} PUBLIC ${PROJECT_SOURCE_DIR})
    foreach(dep IN LISTS M_DEPS)
        target_link_libraries(ringperf_${name} PUBLIC ringperf_${dep})
    endforeach()
    target_link_libraries(ringperf_${name} PUBLIC ${M_LIBS})
endfunction()

if(RINGPERF_FUZZ)
    # Coverage instrumentation for every library, so fuzz targets see into the modules.
    add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined)
endif()
