"""Live search engines as judge_app asks them (``judge-app fetch``, Lead ▸ Fetch results…):
a request template a query fills (``template``), the mapping of an answer's hits to documents
(``fields``), and the HTTP client that sends one request at a time at a steady pace, with
timeouts, retries and credentials that never follow a redirect to another host (``client``,
``pacing``). No store, no Qt: the use case (``commands.fetch``) writes what comes back."""
