"""The assistant's web page, served by the brain at ``/`` (``docs/running.md``, "The page")."""
