"""The speaking core shared by the services that talk: the sentence splitter that cuts a
streamed answer into what is synthesized at once, and the volume with its saved level."""
