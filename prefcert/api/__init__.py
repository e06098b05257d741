"""The public Python API, one module per domain, all re-exported by :mod:`prefcert`.

- :mod:`.core` — ``read``, ``label``, ``check``, ``audit``, ``classify`` (every domain);
- :mod:`.stable_matching`, :mod:`.hospitals_residents`, :mod:`.housing_market`,
  :mod:`.house_allocation`, :mod:`.preference`, :mod:`.election`, :mod:`.decision`,
  :mod:`.consistency` — each domain's algorithms by their textbook names.
"""
