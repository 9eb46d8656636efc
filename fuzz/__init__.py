"""A fuzz harness for decisions_input, driven only through the package's public API.

Four targets, each with its own properties (see :mod:`fuzz.properties`):

- ``requests``: request bodies of both targets, generated valid and then mutated
  (:mod:`fuzz.bodies`), and JSON text mutated byte by byte (:mod:`fuzz.mutate`);
- ``media``: the real files of ``testdata/media/`` mutated byte by byte;
- ``responses``: response, error and signals bodies, generated and mutated;
- ``cli``: the command line over mutated request, response, spec and media files.

``python -m fuzz --target all --seconds 60`` runs it (:mod:`fuzz.run`). Every failure is
shrunk to a small input and saved as a case file (:mod:`fuzz.cases`) that the suite can
replay.
"""

from __future__ import annotations

__all__: list[str] = []
