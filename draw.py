"""``weft.draw``: Weft's bodies drawn into your Arcade game, and sprites that ride on them.

``Renderer(physics).draw()`` draws into whatever framebuffer is active,
under whatever camera is active, as your sprites are: it never clears and
never moves a camera, so call it in ``on_draw`` between your own layers.
``follow(sprite, entity)`` puts a sprite on a body after every frame.

Importing this module imports arcade (``import weft`` alone does not).

Example::

    import weft
    from weft.draw import Renderer, follow

    renderer = Renderer(physics)
    follow(crate_sprite, crate)

    def on_draw(self):
        self.clear()
        with self.camera.activate():
            self.background_sprites.draw()
            renderer.draw(layers=["cloth", "boxes"])
            self.player_list.draw()
            renderer.draw(layers=["circles"])
"""

from weft.game.renderer import DEFAULT_LAYERS, LAYERS, Renderer, follow, unfollow
from weft.systems.draw.options import DrawOptions

__all__ = ["DEFAULT_LAYERS", "LAYERS", "DrawOptions", "Renderer", "follow", "unfollow"]
