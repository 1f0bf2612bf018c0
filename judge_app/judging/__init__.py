"""One rater's judging, without Qt: the session (the queue, the open query's items, the changes
on their way to the database), active timing, the key maps and the query's terms marked in a
document. The judging screen (``judge_app.gui.judging``) shows it and binds keys to it."""
