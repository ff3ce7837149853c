/*
 * prose.c - the source text for token-exact synthetic prompts. Written for
 * ringperf (not taken from anywhere): plain English sentences with ordinary
 * punctuation, no control characters and nothing that looks like a special
 * token, so prompts read like text to a server that inspects them.
 */
#include "datasets/datasets_internal.h"

const char DATASET__PROSE[] =
    "The river began as a thin line of water between two stones, and for a long time nobody "
    "thought it would amount to much. Farmers crossed it without looking down. Children built "
    "small dams of mud and sticks, and by evening the water had always found its way around "
    "them. Over many years the line grew wider, the stones were carried off, and the valley "
    "learned to listen for the sound of it in spring. "
    "An engineer who came to measure the flow wrote in her notebook that the river was patient "
    "rather than strong. She counted the days of rain, the depth at the old bridge, and the "
    "speed of a leaf thrown from the bank. Her numbers were careful, but the pattern she found "
    "was simple: the water remembered every path it had taken before, and it chose the easiest "
    "one each time. "
    "In the village market people traded bread, cheese, wool, and stories about the weather. "
    "The baker claimed he could predict a storm from the way his dough rose in the morning. "
    "The teacher asked her students to test that claim, so for a whole winter they wrote down "
    "the height of the bread and the color of the sky. In the spring they compared the two "
    "lists and laughed, because the bread had been right about as often as a coin. "
    "Good questions are usually small ones. How long does a candle burn? Why does the kettle "
    "sing before it boils? What happens to a sound after it leaves the room? Each answer opens "
    "a door to a larger question, and the larger question is rarely the one we expected. "
    "A library is a kind of map. It does not show mountains or roads, but it shows where "
    "people have been in their thinking, which paths they walked often, and which ones they "
    "left for someone else. The quiet reader in the corner is traveling as far as any sailor. "
    "When the bridge was finally rebuilt, the workers used stone from the same quarry as the "
    "first one. They fitted each block by hand, checked it against a string pulled tight "
    "across the gap, and moved on only when it sat level. The new bridge looked old on the "
    "day it opened, which pleased everyone, and it carried carts, cattle, and bicycles for "
    "another hundred years. "
    "Systems that run for a long time teach the same lesson. The first version works because "
    "someone watched it closely. The second works because the watching was written down. The "
    "third works because the writing was tested, measured, and improved by people who never "
    "met the author, yet understood exactly what she meant. "
    "At night the valley was dark except for a few windows and the slow light of the moon on "
    "the water. An owl called from the forest, a dog answered from a farm, and the river kept "
    "its own time, moving the same way it always had, one stone and one season after another.";

const size_t DATASET__PROSE_LEN = sizeof(DATASET__PROSE) - 1;
