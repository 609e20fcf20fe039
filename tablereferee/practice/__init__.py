"""Signal practice: drills scored for nonchalance, the spotter's quiz, and their history
(docs/practice.md)."""
