"""Qian & He 2026, rational value risk: the estimator behind ``prefcert risk`` with
prefcert as the verifier (:mod:`.risk`) and its HTML report (:mod:`.report`)."""
