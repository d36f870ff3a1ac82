"""The Dreamer's workers (issue 10, item 4): `skillmem worker`, and the one `skillmem serve`
runs beside the API unless SKILLMEM_WORKER is off. ``runner`` is the worker, ``queue`` its
jobs on pgqueuer, ``config`` what the settings make of them."""
