"""The satellites: other rooms' Wyoming satellites as the assistant's ears and mouths."""
