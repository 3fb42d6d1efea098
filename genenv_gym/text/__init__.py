"""Helpers of the meaning checks that read a task's English text: words without content
(``stop_words``), numbers as text writes them (``number_words``), what a request asserts (``polarity``)
and the month names (``months``)."""
