"""Inter-annotator agreement on graded relevance (DESIGN section 4): coefficients on arrays
(``coefficients``), the whole report of a judgments frame (``report``), stability of the run
ranking across raters (``stability``) and its text forms (``formats``). No Qt, no SQLAlchemy."""
