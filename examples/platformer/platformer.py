"""A small Arcade platformer of its own, with Weft as a plugin: ``python examples/platformer/platformer.py``.

The game owns the window, the view, the sprites, a scrolling camera and an
esper world with a processor of its own (the controls). Weft adds its
physics to that world: the player is a Weft circle the controls push, the
crates are Weft boxes that carry sprites (``follow``), a cloth flag flies
over the path, the mouse shoots marbles along a raycast aim, and coins are
collected on ``weft.contact_begin``.

Keys: LEFT / RIGHT (or A / D) walk, SPACE (or UP, W) jumps, the mouse aims
and the left button shoots.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import arcade
import esper

import weft
from weft.draw import Renderer, follow

WIDTH, HEIGHT = 1280, 720
LEVEL_WIDTH = 3200
WALK_SPEED = 320.0  # px/s
JUMP_SPEED = 720.0  # px/s: about 1.5 boxes high at this gravity
GRAVITY = -1400.0  # px/s²: a snappier fall than the world's default
PLAYER_RADIUS = 20.0
SHOT_SPEED = 1100.0
AIM_RANGE = 900.0
PLAYER_IMAGE = ":resources:images/animated_characters/female_person/femalePerson_idle.png"
COIN_SOUND = ":resources:sounds/coin1.wav"
MAX_MARBLES = 40
"""Marbles kept in the level; the oldest goes when another is shot."""


KEYS = {
    **dict.fromkeys((arcade.key.LEFT, arcade.key.A), "left"),
    **dict.fromkeys((arcade.key.RIGHT, arcade.key.D), "right"),
    **dict.fromkeys((arcade.key.SPACE, arcade.key.UP, arcade.key.W), "jump"),
}
"""What each key asks of the player."""


@dataclass
class Player:
    """The game's own component: what the keys ask of the player, and its Weft body."""

    body: int
    left: bool = False
    right: bool = False
    jump: bool = False


@dataclass
class Coin:
    """A coin: its Weft body (a fixed circle) and its sprite."""

    body: int
    sprite: arcade.Sprite


class Controls(esper.Processor):
    """The game's own processor: walks and jumps the player by setting its Weft body's velocity."""

    def __init__(self, physics: weft.Physics) -> None:
        self.physics = physics
        self.frames = 0
        """Frames this processor ran (the test checks it ran every frame)."""

    def process(self, dt: float) -> None:
        self.frames += 1
        for _, player in esper.get_component(Player):
            physics = self.physics
            vx = WALK_SPEED * (player.right - player.left)
            vy = float(physics.velocities(player.body)[0, 1])
            if player.jump and self.grounded(player):
                vy = JUMP_SPEED
            player.jump = False
            physics.set_velocity(player.body, (vx, vy))

    def grounded(self, player: Player) -> bool:
        """Whether something is right under the player: the floor, or a box or circle a ray meets."""
        x, y = self.physics.positions(player.body)[0]
        if y - PLAYER_RADIUS < 2.0:
            return True
        return self.physics.raycast((x, y), (x, y - PLAYER_RADIUS - 4.0)) is not None  # passes itself by


class Platformer(arcade.View):
    """The game: a level twice and a half the window wide, scrolled to follow the player."""

    def __init__(self) -> None:
        super().__init__()
        esper.switch_world("platformer")
        self.physics = weft.Physics(
            settings=weft.World(
                bounds=[0, 0, LEVEL_WIDTH, HEIGHT],
                gravity=[0, GRAVITY],
                wind={"enabled": True, "strength": 1500, "gust": 0.5},
            )
        )
        physics = self.physics
        physics.add(
            weft.Boxes(
                name="platforms",
                layout="list",
                positions=[[700, 140], [1150, 240], [1900, 180], [2500, 260]],
                size=[220, 24],
                fixed=True,
                colors=["#5b6b8c"],
            )
        )
        self.crates = physics.add(
            weft.Boxes(
                name="crates", layout="list", positions=[[420, 20], [470, 20], [445, 62]], size=[44, 44]
            )
        )
        self.flag = physics.add(
            weft.Cloth(
                name="flag",
                cols=26,
                rows=14,
                origin=[1500, 560],
                spacing=10,
                pins={
                    "layout": "list",
                    "points": [[0, row] for row in range(14)],
                },  # its left edge on the pole
                pattern="stripes",
                colors=["#e0533d", "#f2e9dc"],
            )
        )
        self.player_body = physics.add(weft.Balls(name="player", positions=[[150, 60]], radius=[20, 20]))
        self.player = esper.create_entity(Player(self.player_body))
        self.controls = Controls(physics)
        esper.add_processor(self.controls, priority=1)  # before Weft's frame: the push counts this frame

        self.sprites = arcade.SpriteList()
        self.player_sprite = arcade.Sprite(
            ":resources:images/animated_characters/female_person/femalePerson_idle.png", 0.5
        )
        self.sprites.append(self.player_sprite)
        follow(self.player_sprite, self.player_body)
        self.crate_sprites = arcade.SpriteList()
        for k in range(3):
            sprite = arcade.Sprite(":resources:images/tiles/boxCrate_double.png")
            sprite.width = sprite.height = 44
            self.crate_sprites.append(sprite)
            follow(sprite, self.crates, index=k)
        self.coins: dict[int, Coin] = {}
        for x, y in [(700, 190), (1150, 290), (1620, 36), (1900, 230), (2500, 310), (2900, 36)]:
            body = physics.add(weft.Balls(name=f"coin-{x}", positions=[[x, y]], radius=[14, 14], fixed=True))
            sprite = arcade.Sprite(":resources:images/items/coinGold.png", 0.4, center_x=x, center_y=y)
            self.sprites.append(sprite)
            self.coins[body] = Coin(body, sprite)
        self.marbles: list[int] = []
        self.score = 0
        self.contacts = 0
        """Contact events heard (the test checks some came)."""
        esper.set_handler(weft.CONTACT_BEGIN, self.on_contact)
        self.coin_sound = (
            None if os.environ.get("ARCADE_HEADLESS") else arcade.load_sound(":resources:sounds/coin1.wav")
        )

        self.renderer = Renderer(physics)
        self.renderer.hide(self.player_body, self.crates, *self.coins)  # drawn as sprites instead
        self.camera = arcade.Camera2D()
        self.hud_camera = arcade.Camera2D()
        self.aim = (600.0, 300.0)
        self.score_text = arcade.Text("", 20, HEIGHT - 36, arcade.color.WHITE, 18)

    # -- the game's events ----------------------------------------------------------------

    def on_contact(self, a: int, b: int) -> None:
        """``weft.contact_begin``: the player touching a coin collects it."""
        self.contacts += 1
        other = b if a == self.player_body else a if b == self.player_body else None
        coin = self.coins.pop(other, None) if other is not None else None
        if coin is None:
            return
        self.score += 1
        coin.sprite.remove_from_sprite_lists()
        self.physics.remove(coin.body)  # during Weft's frame: it goes when the frame ends
        if self.coin_sound is not None:
            arcade.play_sound(self.coin_sound)

    def on_key_press(self, key: int, modifiers: int) -> None:
        if key in KEYS:  # held: walk; pressed: jump (the controls take it once)
            setattr(esper.component_for_entity(self.player, Player), KEYS[key], True)

    def on_key_release(self, key: int, modifiers: int) -> None:
        if KEYS.get(key) in ("left", "right"):
            setattr(esper.component_for_entity(self.player, Player), KEYS[key], False)

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        point = self.camera.unproject((x, y))
        self.aim = (point[0], point[1])

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        self.on_mouse_motion(x, y, 0, 0)
        if button == arcade.MOUSE_BUTTON_LEFT:
            self.shoot()

    def shoot(self) -> None:
        """A marble from the player's edge towards the aim."""
        (px, py), (dx, dy) = self.physics.positions(self.player_body)[0], self.aim_direction()
        start = (px + dx * (PLAYER_RADIUS + 8), py + dy * (PLAYER_RADIUS + 8))
        marble = self.physics.add(weft.Balls(name="marble", positions=[list(start)], radius=[6, 6]))
        self.physics.set_velocity(marble, (dx * SHOT_SPEED, dy * SHOT_SPEED))
        self.marbles.append(marble)
        if len(self.marbles) > MAX_MARBLES:
            self.physics.remove(self.marbles.pop(0))

    def aim_direction(self) -> tuple[float, float]:
        px, py = self.physics.positions(self.player_body)[0]
        dx, dy = self.aim[0] - px, self.aim[1] - py
        length = math.hypot(dx, dy)
        return (dx / length, dy / length) if length > 1e-6 else (1.0, 0.0)

    # -- the loop -----------------------------------------------------------------------

    def on_update(self, delta_time: float) -> None:
        esper.process(delta_time)  # the controls, then Weft's fixed frames
        x = min(max(self.player_sprite.center_x, WIDTH / 2), LEVEL_WIDTH - WIDTH / 2)
        cx = self.camera.position[0]
        self.camera.position = (cx + (x - cx) * 0.15, HEIGHT / 2)  # eased, so it glides
        self.score_text.text = f"coins {self.score} / 6    marbles {len(self.marbles)}"

    def on_draw(self) -> None:
        self.clear(color=(27, 31, 42, 255))
        with self.camera.activate():
            arcade.draw_lrbt_rectangle_filled(1494, 1500, 0, 565, (120, 110, 100, 255))  # the flag's pole
            self.renderer.draw(layers=["cloth", "boxes", "circles"])  # Weft's layers, under the sprites
            self.crate_sprites.draw()
            self.sprites.draw()
            self.draw_aim()
        with self.hud_camera.activate():
            self.score_text.draw()

    def draw_aim(self) -> None:
        """A line from the player to what the shot would hit first (or the aim's range)."""
        (px, py), (dx, dy) = self.physics.positions(self.player_body)[0], self.aim_direction()
        end = (px + dx * AIM_RANGE, py + dy * AIM_RANGE)
        hit = self.physics.raycast((px, py), end)
        tip = hit.point if hit is not None else end
        arcade.draw_line(px, py, tip[0], tip[1], (255, 255, 255, 90), 2)
        if hit is not None:
            arcade.draw_circle_outline(tip[0], tip[1], 6, (255, 220, 120, 200), 2)


def main() -> None:
    """Open the window and play."""
    window = arcade.Window(WIDTH, HEIGHT, "A platformer with Weft")
    window.show_view(Platformer())
    arcade.run()


if __name__ == "__main__":
    main()
