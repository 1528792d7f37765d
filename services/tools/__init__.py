"""The tool executor: runs the tools of the config folder for the dialogue, sandboxed."""
