"""The benchmark suites shipped with prefcert (registered in prefcert.bench.registry)."""
