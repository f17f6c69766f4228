"""Drawing systems: the DRAW stage, the only part of ``systems`` that imports arcade.

Each system uploads the stores' arrays to GPU buffers and draws a whole batch
in one call through ``arcade.gl``:

- ``cloth_mesh.ClothMeshSystem``: every sheet as one textured triangle mesh.
- ``threads.ThreadDebugSystem``: every alive thread coloured by strain (debug view).
- ``pins.PinMarkerSystem``: every pinned point as a small ring.
- ``circles.CircleSystem``: every circle as a shaded, palette-coloured ball, one GL_POINTS call.
- ``boxes.BoxSystem``: every rigid box as a bevelled, outlined rectangle, one instanced call.
- ``skins.SkinMeshSystem``: every skinned character as one textured triangle mesh; bones and
  the skinning figure in the debug view.
- ``creatures.CreatureSystem``: every soft body as legs, a shaded body with an outline, and a face.
- ``strokes.StrokeBatch``: thick round-capped segments (tool overlays, legs, outlines), one call per batch.
- ``fills.FillBatch``: triangles coloured per vertex (the creatures' bodies), one call per batch.
- ``splines``: Catmull-Rom curves as fixed matrices; ``faces``: the creatures' faces.
- ``patterns.pattern_image``: the procedural cloth tiles (numpy only).
- ``options.DrawOptions``: what the window tells the systems (debug flag, which world, zoom, circle colours).

This package imports nothing itself, so ``weft.systems.draw.patterns`` stays usable
without a GL context; import the module you need.
"""
