"""Images for the model: decoded and checked with Pillow, downscaled so the longest side is at most 1568 px
(what the API recommends: larger images are scaled down on its side anyway and cost more), and encoded
small enough to be accepted. A file Pillow cannot decode is refused here, so it is never sent: one bad image
in the history would make every later request fail.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Pillow is imported on the first image read: most runs read none (~40 ms a start)
    from PIL import Image

MAX_LONG_SIDE_PX = 1568
# What one image may weigh once encoded (the API's limit is 5 MB of base64, i.e. 3.75 MB of bytes).
MAX_ENCODED_BYTES = int(3.75 * 1024 * 1024)
# Files bigger than this are not even opened (a phone photo is well below it).
MAX_FILE_BYTES = 30 * 1024 * 1024

_SENDABLE = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
_JPEG_QUALITY = 85


class ImageError(ValueError):
    """A file that cannot be sent as an image; the message is for the model."""


@dataclass(frozen=True, slots=True)
class PreparedImage:
    media_type: str
    data: bytes
    width: int
    height: int
    original_size: tuple[int, int]

    def block(self) -> dict[str, Any]:
        """The API's image content block (base64)."""
        encoded = base64.b64encode(self.data).decode("ascii")
        return {"type": "image", "source": {"type": "base64", "media_type": self.media_type, "data": encoded}}


def prepare_image(path: Path) -> PreparedImage:
    """Decode `path`, downscale it if needed, and encode it for the API. Raises ImageError."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ImageError(
            f"Image file is too large to read ({size / 1024 / 1024:.1f} MB; the limit is "
            f"{MAX_FILE_BYTES // 1024 // 1024} MB): {path}. Make a smaller copy first and read that."
        )
    raw = path.read_bytes()
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(raw)) as img:
            img.load()  # decode the whole image now: a truncated or corrupt file fails here, not at the API
            return _fit(img, raw)
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, SyntaxError, ValueError) as exc:
        raise ImageError(f"This file is not a valid image and cannot be read ({_reason(exc)}): {path}") from None


def _fit(img: Image.Image, raw: bytes) -> PreparedImage:
    from PIL import Image

    fmt = img.format or ""
    original = img.size
    if max(original) <= MAX_LONG_SIDE_PX and fmt in _SENDABLE and len(raw) <= MAX_ENCODED_BYTES:
        return PreparedImage(_SENDABLE[fmt], raw, *original, original)  # sent byte for byte
    frame = img.convert("RGBA") if _has_alpha(img) else img.convert("RGB")
    frame.thumbnail((MAX_LONG_SIDE_PX, MAX_LONG_SIDE_PX), Image.Resampling.LANCZOS)
    lossless = fmt in ("PNG", "GIF") or frame.mode == "RGBA"
    data, media_type = _encode(frame, lossless)
    while len(data) > MAX_ENCODED_BYTES:
        # Still too heavy (a noisy photo as PNG): lossy, and smaller each round.
        if frame.mode == "RGBA":
            frame = _flatten(frame)
        frame = frame.resize((max(1, frame.width * 3 // 4), max(1, frame.height * 3 // 4)), Image.Resampling.LANCZOS)
        data, media_type = _encode(frame, lossless=False)
    return PreparedImage(media_type, data, frame.width, frame.height, original)


def _encode(frame: Image.Image, lossless: bool) -> tuple[bytes, str]:
    out = io.BytesIO()
    if lossless:
        frame.save(out, "PNG", optimize=True)
        return out.getvalue(), "image/png"
    frame.save(out, "JPEG", quality=_JPEG_QUALITY)
    return out.getvalue(), "image/jpeg"


def _has_alpha(img: Image.Image) -> bool:
    return img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info)


def _flatten(frame: Image.Image) -> Image.Image:
    from PIL import Image

    background = Image.new("RGB", frame.size, (255, 255, 255))
    background.paste(frame, mask=frame.getchannel("A"))
    return background


def _reason(exc: Exception) -> str:
    from PIL import Image, UnidentifiedImageError

    if isinstance(exc, UnidentifiedImageError):
        return "not a format that can be decoded"
    if isinstance(exc, Image.DecompressionBombError):
        return "too many pixels"
    return str(exc) or type(exc).__name__
