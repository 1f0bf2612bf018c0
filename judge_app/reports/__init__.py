"""Report assembly: charts (matplotlib figures) and the HTML campaign report. No Qt."""
