"""How an ensemble of automatic judges combines its members' grades of a pair (``judge-app
ensemble``): the rules by name, with the words the command line and the window show."""

COMBINE = {
    "mean": "the members' mean grade",
    "median": "the members' median grade",
    "majority": "the grade most members gave (rounded half up; on a tie the lowest of those)",
}
