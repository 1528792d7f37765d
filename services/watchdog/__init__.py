"""The turn watchdog: a voice turn never ends in silence because the stage holding it died."""
