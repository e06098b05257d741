"""Each domain's questions wired to their engines, audits and default questions (one module
per domain, each exporting ``DOMAIN``); looked up through :mod:`prefcert.pipeline.registry`."""
