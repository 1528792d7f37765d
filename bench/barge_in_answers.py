"""The questions and long answers of the barge-in benchmark's ``--talk-alone`` mode.

Each answer is a different paragraph of seven or eight sentences (35 to 45 s of
speech), with the commas and pauses of ordinary prose: the canceller must hold
through the pauses, where the echo's tail rings alone, as through the speech.
None says the wake word or a stop phrase, so anything its own voice triggers is
a fault of the canceller or the mic, not of the text.
"""

from __future__ import annotations

TOPICS: list[tuple[str, list[str]]] = [
    ("Okay Nabu. Tell me about the history of Rome.", [
        "Rome began as a handful of villages on the hills beside the river Tiber. ",
        "Its people drained the marshes below, and built a market square where the "
        "valley met the water. ",
        "For centuries the city was a republic, governed by a senate of old families and "
        "by magistrates elected every year. ",
        "Its armies carried its roads, its coins and its language around the whole "
        "Mediterranean sea. ",
        "When the republic fell into civil war, Augustus gathered its powers into his own "
        "hands and became the first emperor. ",
        "At its height the city held perhaps a million people, fed with grain shipped from "
        "Egypt and Sicily. ",
        "The western empire faded in the fifth century, but the eastern half lasted for "
        "another thousand years. ",
    ]),
    ("Okay Nabu. How deep is the ocean?", [
        "The ocean covers about seven tenths of the surface of the earth. ",
        "On average it is nearly four kilometres deep, far deeper than most people imagine. ",
        "Its deepest known point, in the Mariana Trench, lies almost eleven kilometres below "
        "the waves. ",
        "Down there the water presses on every square centimetre with the weight of a small "
        "car. ",
        "Sunlight fades within the first few hundred metres, and below that the sea is dark "
        "and cold all year. ",
        "Even so, fish, worms and shrimp live in the trenches, feeding on what sinks from the "
        "surface. ",
        "Only a few crewed vessels have ever reached the very bottom and come back up again. ",
    ]),
    ("Okay Nabu. Why do bees make honey?", [
        "Bees make honey to feed their colony through the long months without flowers. ",
        "A worker bee drinks nectar from blossoms and carries it home in a special stomach. ",
        "In the hive she passes it to younger bees, who chew it and add enzymes that break "
        "the sugars down. ",
        "They spread the liquid in wax cells and fan it with their wings until most of the "
        "water is gone. ",
        "Then they seal each cell with a thin cap of wax, and the honey keeps for years. ",
        "A strong hive may gather many kilograms in a good summer, much more than it needs "
        "to survive. ",
        "Beekeepers take the surplus, and leave the bees enough to last until the spring. ",
        "A single spoonful is the work of a dozen bees over their whole lives. ",
    ]),
    ("Okay Nabu. How were the first railways built?", [
        "The first railways were wooden tracks in mines, where horses pulled carts of coal. ",
        "Early in the nineteenth century engineers in England put steam engines on wheels "
        "and iron rails. ",
        "The line between Liverpool and Manchester opened in eighteen thirty, carrying "
        "passengers as well as goods. ",
        "Thousands of labourers dug cuttings, raised embankments and bored tunnels by hand "
        "and with gunpowder. ",
        "Within a few decades railways crossed every country in Europe and reached across "
        "America. ",
        "They changed how people thought about time, because every town needed the same "
        "clock for the timetables. ",
        "Travel that had taken days by coach now took a few hours, and cities grew along the "
        "lines. ",
    ]),
    ("Okay Nabu. What is on the far side of the moon?", [
        "The moon always turns the same face towards the earth, so its far side stays hidden "
        "from us. ",
        "It is not dark, though: it gets as much sunlight as the side we see. ",
        "The first photographs of it were taken by a Soviet probe in nineteen fifty nine. ",
        "They showed a rough landscape, covered in craters, with very few of the wide dark "
        "plains of the near side. ",
        "Its crust is thicker there, so lava from the interior rarely reached the surface. ",
        "In twenty nineteen a Chinese lander became the first machine to touch down on the "
        "far side. ",
        "Because the moon blocks the radio noise of the earth, astronomers would like to "
        "build telescopes there one day. ",
    ]),
    ("Okay Nabu. How do mountains form?", [
        "Most great mountain ranges form where the plates of the earth's crust push against "
        "each other. ",
        "When two continents collide, neither sinks easily, so the rock between them folds "
        "and rises. ",
        "The Himalayas are still growing this way, by a few millimetres every year, as India "
        "presses north. ",
        "Other mountains are volcanoes, built layer by layer from lava and ash over "
        "thousands of years. ",
        "At the same time rain, ice and rivers wear every range down again. ",
        "Old mountains, like the Appalachians, were once as high as the Alps but are now "
        "rounded hills. ",
        "So the height of a mountain is a balance between the forces that lift it and the "
        "weather that erodes it. ",
    ]),
]
"""The question said into the room (the wake word first), and its answer in sentences."""
