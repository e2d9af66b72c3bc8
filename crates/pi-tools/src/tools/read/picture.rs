//! Images for `read`: recognised by their first bytes (never by the file
//! name), sent as base64, BMP converted to PNG, and resized or re-encoded when
//! they exceed the inline limits (2000x2000 pixels, 4.5 MiB of base64).
//!
//! Recognition follows the reference's header checks: JPEG `FF D8 FF`; PNG
//! signature followed by an `IHDR` chunk; `GIF87a`/`GIF89a`; `RIFF....WEBP`;
//! BMP `BM` with a plausible header (info header of 12 or 40–124 bytes, one
//! plane, 1/4/8/16/24/32 bits per pixel, pixel data after the headers).
//! A file that is recognised but cannot be decoded is reported, not sent.

use std::io::Cursor;

use base64::Engine;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{ColorType, DynamicImage, ImageFormat, ImageReader};

use crate::jsnum::js_to_fixed_2;
use crate::limits::{
    READ_IMAGE_DOWNSCALE_STEP, READ_IMAGE_JPEG_QUALITIES, READ_IMAGE_MAX_BASE64_BYTES, READ_IMAGE_MAX_DIMENSION,
    READ_IMAGE_MAX_DOWNSCALES,
};
use crate::text::read as msg;

/// Bytes of the file start that [`detect`] looks at.
pub(super) const HEAD_BYTES: usize = 32;

const PNG_MIME: &str = "image/png";
const JPEG_MIME: &str = "image/jpeg";

/// The image formats `read` sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Jpeg,
    Png,
    Gif,
    Webp,
    Bmp,
}

impl Kind {
    /// The MIME type.
    pub(super) fn mime(self) -> &'static str {
        match self {
            Kind::Jpeg => JPEG_MIME,
            Kind::Png => PNG_MIME,
            Kind::Gif => "image/gif",
            Kind::Webp => "image/webp",
            Kind::Bmp => "image/bmp",
        }
    }

    fn format(self) -> ImageFormat {
        match self {
            Kind::Jpeg => ImageFormat::Jpeg,
            Kind::Png => ImageFormat::Png,
            Kind::Gif => ImageFormat::Gif,
            Kind::Webp => ImageFormat::WebP,
            Kind::Bmp => ImageFormat::Bmp,
        }
    }
}

fn u16le(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn is_bmp(h: &[u8]) -> bool {
    if h.len() < 26 || &h[..2] != b"BM" {
        return false;
    }
    let data_offset = u64::from(u32le(h, 10));
    let info_size = u32le(h, 14);
    let (planes, bits) = if info_size == 12 {
        (u16le(h, 22), u16le(h, 24))
    } else if (40..=124).contains(&info_size) && h.len() >= 30 {
        (u16le(h, 26), u16le(h, 28))
    } else {
        return false;
    };
    planes == 1 && matches!(bits, 1 | 4 | 8 | 16 | 24 | 32) && data_offset >= 14 + u64::from(info_size)
}

/// The image format of a file that starts with `head`, if it is one `read` sends.
pub(super) fn detect(head: &[u8]) -> Option<Kind> {
    const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(Kind::Jpeg)
    } else if head.len() >= 16 && head.starts_with(PNG_SIGNATURE) && &head[12..16] == b"IHDR" {
        Some(Kind::Png)
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some(Kind::Gif)
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Some(Kind::Webp)
    } else if is_bmp(head) {
        Some(Kind::Bmp)
    } else {
        None
    }
}

/// What `read` returns for an image: the text block, and the image block
/// (base64 data and MIME type) unless the image had to be left out.
#[derive(Debug)]
pub(super) struct Processed {
    pub text: String,
    pub image: Option<(String, &'static str)>,
}

impl Processed {
    /// The image is left out; only `Read image file [<mime>]` and the reason.
    pub(super) fn omitted(kind: Kind, note: &str) -> Self {
        Processed { text: format!("{}\n{note}", msg::image_read(kind.mime())), image: None }
    }
}

fn base64_len(bytes: usize) -> usize {
    bytes.div_ceil(3) * 4
}

fn fits(bytes: &[u8]) -> bool {
    base64_len(bytes.len()) <= READ_IMAGE_MAX_BASE64_BYTES
}

fn encode_png(img: &DynamicImage) -> Option<Vec<u8>> {
    let eight_bit = match img.color() {
        ColorType::L8 | ColorType::La8 | ColorType::Rgb8 | ColorType::Rgba8 => None,
        ColorType::L16 => Some(DynamicImage::ImageLuma8(img.to_luma8())),
        ColorType::La16 => Some(DynamicImage::ImageLumaA8(img.to_luma_alpha8())),
        c if c.has_alpha() => Some(DynamicImage::ImageRgba8(img.to_rgba8())),
        _ => Some(DynamicImage::ImageRgb8(img.to_rgb8())),
    };
    let mut out = Vec::new();
    eight_bit.as_ref().unwrap_or(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).ok()?;
    Some(out)
}

fn encode_jpeg(img: &DynamicImage, quality: u8) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let rgb = DynamicImage::ImageRgb8(img.to_rgb8());
    JpegEncoder::new_with_quality(&mut out, quality).encode_image(&rgb).ok()?;
    Some(out)
}

fn js_round(x: f64) -> f64 {
    (x + 0.5).floor()
}

/// The size that fits `max` x `max` keeping the aspect ratio (the limiting
/// side becomes exactly `max`), or `None` when a side would round to zero.
fn fit_dimensions(w: u32, h: u32, max: u32) -> Option<(u32, u32)> {
    let (mut tw, mut th) = (f64::from(w), f64::from(h));
    let m = f64::from(max);
    if tw > m {
        th = js_round(th * m / tw);
        tw = m;
    }
    if th > m {
        tw = js_round(tw * m / th);
        th = m;
    }
    (tw >= 1.0 && th >= 1.0).then_some((tw as u32, th as u32))
}

/// Resize (when needed) and encode until the result fits the inline limit:
/// at each size the smaller of PNG and JPEG, then lower JPEG qualities, then
/// a smaller size.
fn shrink(img: &DynamicImage) -> Option<(Vec<u8>, &'static str, u32, u32)> {
    let (mut w, mut h) = fit_dimensions(img.width(), img.height(), READ_IMAGE_MAX_DIMENSION)?;
    for _ in 0..=READ_IMAGE_MAX_DOWNSCALES {
        let resized;
        let current = if (w, h) == (img.width(), img.height()) {
            img
        } else {
            resized = img.resize_exact(w, h, FilterType::Lanczos3);
            &resized
        };
        let mut qualities = READ_IMAGE_JPEG_QUALITIES.iter();
        let png = encode_png(current);
        let jpeg = qualities.next().and_then(|q| encode_jpeg(current, *q));
        let best = match (png, jpeg) {
            (Some(p), Some(j)) if j.len() < p.len() => Some((j, JPEG_MIME)),
            (Some(p), _) => Some((p, PNG_MIME)),
            (None, Some(j)) => Some((j, JPEG_MIME)),
            (None, None) => None,
        };
        if let Some((data, mime)) = best
            && fits(&data)
        {
            return Some((data, mime, w, h));
        }
        for q in qualities {
            if let Some(data) = encode_jpeg(current, *q)
                && fits(&data)
            {
                return Some((data, JPEG_MIME, w, h));
            }
        }
        let nw = js_round(f64::from(w) * READ_IMAGE_DOWNSCALE_STEP);
        let nh = js_round(f64::from(h) * READ_IMAGE_DOWNSCALE_STEP);
        if nw < 1.0 || nh < 1.0 {
            return None;
        }
        (w, h) = (nw as u32, nh as u32);
    }
    None
}

/// Turn the bytes of a recognised image into what `read` returns.
pub(super) fn process(bytes: Vec<u8>, kind: Kind) -> Processed {
    let decode_failure =
        if kind == Kind::Bmp { msg::IMAGE_OMITTED_UNCONVERTIBLE } else { msg::IMAGE_OMITTED_TOO_LARGE };
    let img = match ImageReader::with_format(Cursor::new(&bytes), kind.format()).decode() {
        Ok(img) => img,
        Err(_) => return Processed::omitted(kind, decode_failure),
    };
    let mut notes = Vec::new();
    let (mut data, mut mime) = (bytes, kind.mime());
    if kind == Kind::Bmp {
        match encode_png(&img) {
            Some(png) => {
                data = png;
                mime = PNG_MIME;
                notes.push(msg::image_converted(kind.mime(), PNG_MIME));
            }
            None => return Processed::omitted(kind, msg::IMAGE_OMITTED_UNCONVERTIBLE),
        }
    }
    let (w, h) = (img.width(), img.height());
    let within = w <= READ_IMAGE_MAX_DIMENSION && h <= READ_IMAGE_MAX_DIMENSION && fits(&data);
    if !within {
        match shrink(&img) {
            Some((out, out_mime, dw, dh)) => {
                let factor = js_to_fixed_2(f64::from(w) / f64::from(dw));
                notes.push(msg::image_resized(w, h, dw, dh, &factor));
                data = out;
                mime = out_mime;
            }
            None => return Processed::omitted(kind, msg::IMAGE_OMITTED_TOO_LARGE),
        }
    }
    let mut text = msg::image_read(mime);
    for note in notes {
        text.push('\n');
        text.push_str(&note);
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(&data);
    Processed { text, image: Some((b64, mime)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bmp(info: u32, offset: u32, planes: u16, bits: u16) -> Vec<u8> {
        let mut b = b"BM".to_vec();
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&offset.to_le_bytes());
        b.extend_from_slice(&info.to_le_bytes());
        b.extend_from_slice(&4i32.to_le_bytes());
        b.extend_from_slice(&3i32.to_le_bytes());
        b.extend_from_slice(&planes.to_le_bytes());
        b.extend_from_slice(&bits.to_le_bytes());
        b
    }

    #[test]
    fn recognises_headers_like_the_reference() {
        assert_eq!(detect(b"\xFF\xD8\xFFxx"), Some(Kind::Jpeg));
        assert_eq!(detect(b"\xFF\xD8xx"), None);
        assert_eq!(detect(b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR"), Some(Kind::Png));
        assert_eq!(detect(b"\x89PNG\r\n\x1a\nGARBAGEX"), None);
        assert_eq!(detect(b"\x89PNG\r\n\x1a\n\0\0\0\x0d"), None);
        assert_eq!(detect(b"GIF87a"), Some(Kind::Gif));
        assert_eq!(detect(b"GIF89"), None);
        assert_eq!(detect(b"GIF8xa"), None);
        assert_eq!(detect(b"RIFF\x10\0\0\0WEBP"), Some(Kind::Webp));
        assert_eq!(detect(b"RIFF\x10\0\0\0WEBX"), None);
        assert_eq!(detect(b"BMW cars are fast, and this line is long"), None);
        assert_eq!(detect(&bmp(40, 54, 1, 24)), Some(Kind::Bmp));
        assert_eq!(detect(&bmp(124, 138, 1, 32)), Some(Kind::Bmp));
        assert_eq!(detect(&bmp(41, 55, 1, 1)), Some(Kind::Bmp));
        assert_eq!(detect(&bmp(40, 53, 1, 24)), None, "pixel data inside the headers");
        assert_eq!(detect(&bmp(40, 54, 0, 24)), None, "zero planes");
        assert_eq!(detect(&bmp(40, 54, 1, 23)), None, "odd bit depth");
        assert_eq!(detect(&bmp(40, 54, 1, 0)), None);
        assert_eq!(detect(&bmp(16, 30, 1, 24)), None, "unknown info header size");
        assert_eq!(detect(&bmp(125, 139, 1, 24)), None);
        assert_eq!(detect(&bmp(40, 54, 1, 24)[..29]), None, "too short");
        let mut core = b"BM".to_vec();
        core.extend_from_slice(&[0; 8]);
        core.extend_from_slice(&26u32.to_le_bytes());
        core.extend_from_slice(&12u32.to_le_bytes());
        core.extend_from_slice(&[4, 0, 3, 0, 1, 0, 24, 0]);
        assert_eq!(detect(&core), Some(Kind::Bmp));
    }

    #[test]
    fn fitting_rounds_like_javascript() {
        assert_eq!(fit_dimensions(3000, 1500, 2000), Some((2000, 1000)));
        assert_eq!(fit_dimensions(3001, 7, 2000), Some((2000, 5)));
        assert_eq!(fit_dimensions(4000, 3, 2000), Some((2000, 2)));
        assert_eq!(fit_dimensions(10, 4000, 2000), Some((5, 2000)));
        assert_eq!(fit_dimensions(2100, 1001, 2000), Some((2000, 953)));
        assert_eq!(fit_dimensions(7000, 1, 2000), None);
        assert_eq!(fit_dimensions(2000, 2000, 2000), Some((2000, 2000)));
    }

    #[test]
    fn broken_images_are_omitted_with_the_reference_notes() {
        let p = process(b"\xFF\xD8\xFFGARBAGE".to_vec(), Kind::Jpeg);
        assert_eq!(
            p.text,
            "Read image file [image/jpeg]\n[Image omitted: could not be resized below the inline image size limit.]"
        );
        assert!(p.image.is_none());
        let p = process(bmp(40, 54, 1, 24), Kind::Bmp);
        assert_eq!(
            p.text,
            "Read image file [image/bmp]\n[Image omitted: could not be converted to a supported inline image format.]"
        );
    }
}
