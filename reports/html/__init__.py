"""The static HTML report (``kodex report``): see :mod:`reports.html.site`."""
from reports.html.site import ReportInputError, build_site, load_results

__all__ = ["ReportInputError", "build_site", "load_results"]
