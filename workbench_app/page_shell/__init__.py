"""The pages the browser loads: `index.html` of the web application with its first reads, its assets,
and the embed page; every other answer is under `/api/v1`."""
