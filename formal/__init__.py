"""prefcert's trusted layer: what a question means and what counts as proof.

Models, solution-concept definitions, certificate checks, file formats, the label/audit
pipeline and the CLI. Checker modules import no solver and nothing from ``oracles`` or
``encodings``.
"""
