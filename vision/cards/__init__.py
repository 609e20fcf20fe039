"""Card reading: find every card in a frame, name it against a deck, follow it, place it.

    from vision.cards.detector import CardDetector      # the ONNX detector (onnxruntime, no torch)
    from vision.cards.templates import load_deck        # built-in (rendered) or enrolled decks
    from vision.cards.reader import CardReader          # detect -> rectify -> identify -> track -> zones

Modules: `detections` (the typed result, `CardDetections`), `detector`, `rectify`, `identify`,
`templates`, `enroll` (a deck from photos), `track` (ByteTrack), `zones`, `reader`; `decks` and
`render` define and draw our own decks. Nothing heavy is imported here.
"""
