"""Card reading: find every card in a frame, name it against a deck, follow it, place it.

    from vision.cards.detector import CardDetector      # the ONNX detector (onnxruntime, no torch)
    from vision.cards.templates import load_deck        # built-in (rendered) or enrolled decks
    from vision.cards.reader import CardReader          # detect -> rectify -> identify -> track -> zones

Modules: `detections` (the typed result, `CardDetections`), `detector`, `geometry` (quad order,
orientation, overlap and shape), `outlines` (classical contour finders), `refine` (precise
corners), `rectify`, `light`, `identify` (`CardIdentifier`), `embed`, `templates` (decks as
identifiers), `enroll` (a deck from photos), `track` (ByteTrack), `zones`, `reader`; `decks` and
`render` define and draw our own decks, `printing` lays them out for print. Tools for the
detector and its measurements: `scenes` (synthetic scenes), `detector_eval`,
`detector_training`, `reading_eval`. Nothing heavy is imported here.
"""
