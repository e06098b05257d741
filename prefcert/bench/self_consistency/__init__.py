"""Ford et al. 2026, self-consistency of elicited willingness-to-pay judgments: the audit
behind ``prefcert consistency`` (:mod:`.audit`) and its HTML report (:mod:`.report`)."""
