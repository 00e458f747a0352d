"""Records TF 1.15's lookup table shared names and their sharing between sessions
(lookup_shared_name_cases.py) into data/lookup_shared_names.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_lookup_shared_names.py
"""

from case_tools import record_tf115
from lookup_shared_name_cases import CASES

record_tf115("lookup_shared_names", CASES)
