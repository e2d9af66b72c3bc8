//! Images for `read`: recognised by their first bytes (never by the file
//! name), sent as base64, BMP converted to PNG, turned upright by their EXIF
//! orientation, and resized or re-encoded when they exceed the inline limits
//! (2000x2000 pixels, 4.5 MiB of base64).
//!
//! Recognition follows the reference's header checks on the first
//! [`READ_IMAGE_SNIFF_BYTES`]: JPEG `FF D8 FF` (not JPEG-LS, whose fourth byte
//! is `F7`); the PNG signature followed by a 13-byte `IHDR` chunk, and no
//! `acTL` chunk (animated PNG) before the first `IDAT`; `GIF87a`/`GIF89a`;
//! `RIFF....WEBP`; BMP `BM` with a plausible header (info header of 12 or
//! 40–124 bytes, one plane, 1/4/8/16/24/32 bits per pixel, pixel data after the
//! headers and, when a file size is declared, inside it). Anything else is read
//! as text. A file that is recognised but cannot be decoded is reported, not sent.
//!
//! Re-encoded images are 8-bit RGBA PNG or JPEG, as the reference's encoder
//! produces them.

use std::io::Cursor;

use base64::Engine;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader};

use crate::ImageOmitted;
use crate::jsnum::js_to_fixed_2;
use crate::limits::{
    READ_IMAGE_DOWNSCALE_STEP, READ_IMAGE_JPEG_QUALITIES, READ_IMAGE_MAX_BASE64_BYTES, READ_IMAGE_MAX_DIMENSION,
    READ_IMAGE_SNIFF_BYTES,
};
use crate::text::read as msg;

/// Bytes of the file start that [`detect`] looks at.
pub(crate) const HEAD_BYTES: usize = READ_IMAGE_SNIFF_BYTES;

const PNG_MIME: &str = "image/png";
const JPEG_MIME: &str = "image/jpeg";
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The image formats `read` sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
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

fn u32be(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn is_bmp(h: &[u8]) -> bool {
    if h.len() < 26 || &h[..2] != b"BM" {
        return false;
    }
    let declared_size = u64::from(u32le(h, 2));
    let data_offset = u64::from(u32le(h, 10));
    let info_size = u32le(h, 14);
    let declared_ok = declared_size == 0 || (declared_size >= 26 && data_offset < declared_size);
    let (planes, bits) = if info_size == 12 {
        (u16le(h, 22), u16le(h, 24))
    } else if (40..=124).contains(&info_size) && h.len() >= 30 {
        (u16le(h, 26), u16le(h, 28))
    } else {
        return false;
    };
    declared_ok && planes == 1 && matches!(bits, 1 | 4 | 8 | 16 | 24 | 32) && data_offset >= 14 + u64::from(info_size)
}

/// A still PNG: a 13-byte `IHDR` first, and no animation control chunk
/// (`acTL`) among the chunks before the first `IDAT` that `h` holds whole.
fn is_still_png(h: &[u8]) -> bool {
    if h.len() < 16 || u32be(h, 8) != 13 || &h[12..16] != b"IHDR" {
        return false;
    }
    let mut at = PNG_SIGNATURE.len();
    while at + 8 <= h.len() {
        match &h[at + 4..at + 8] {
            b"acTL" => return false,
            b"IDAT" => return true,
            _ => {}
        }
        let next = at as u64 + 12 + u64::from(u32be(h, at));
        if next > h.len() as u64 {
            return true;
        }
        at = next as usize;
    }
    true
}

/// The image format of a file that starts with `head`, if it is one `read` sends.
pub(crate) fn detect(head: &[u8]) -> Option<Kind> {
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        (head.get(3) != Some(&0xF7)).then_some(Kind::Jpeg)
    } else if head.starts_with(PNG_SIGNATURE) {
        is_still_png(head).then_some(Kind::Png)
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
    base64_len(bytes.len()) < READ_IMAGE_MAX_BASE64_BYTES
}

fn encode_png(img: &DynamicImage) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    DynamicImage::ImageRgba8(img.to_rgba8()).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).ok()?;
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

/// The next, smaller side length tried when nothing fits (never below 1).
fn downscaled(side: u32) -> u32 {
    if side == 1 { 1 } else { ((f64::from(side) * READ_IMAGE_DOWNSCALE_STEP).floor() as u32).max(1) }
}

/// Resize and encode until the result fits the inline limit: at each size the
/// smaller of PNG and JPEG (first quality), then the other, then the further
/// JPEG qualities; then a smaller size, down to 1x1.
fn shrink(img: &DynamicImage) -> Option<(Vec<u8>, &'static str, u32, u32)> {
    let (mut w, mut h) = fit_dimensions(img.width(), img.height(), READ_IMAGE_MAX_DIMENSION)?;
    loop {
        let current = img.resize_exact(w, h, FilterType::Lanczos3);
        let (first, rest) = READ_IMAGE_JPEG_QUALITIES.split_first()?;
        let png = encode_png(&current).map(|d| (d, PNG_MIME));
        let jpeg = encode_jpeg(&current, *first).map(|d| (d, JPEG_MIME));
        let jpeg_smaller = matches!((&png, &jpeg), (Some((p, _)), Some((j, _))) if j.len() < p.len());
        let preferred = if jpeg_smaller { [jpeg, png] } else { [png, jpeg] };
        if let Some(found) = preferred.into_iter().flatten().find(|(d, _)| fits(d)) {
            return Some((found.0, found.1, w, h));
        }
        for q in rest {
            if let Some(data) = encode_jpeg(&current, *q)
                && fits(&data)
            {
                return Some((data, JPEG_MIME, w, h));
            }
        }
        let next = (downscaled(w), downscaled(h));
        if next == (w, h) {
            return None;
        }
        (w, h) = next;
    }
}

/// Decode `bytes` as `kind` and turn the picture upright by its EXIF
/// orientation (JPEG and WebP carry one).
fn decode_upright(bytes: &[u8], kind: Kind) -> Option<DynamicImage> {
    let mut decoder = ImageReader::with_format(Cursor::new(bytes), kind.format()).into_decoder().ok()?;
    let orientation = decoder.orientation().ok();
    let mut img = DynamicImage::from_decoder(decoder).ok()?;
    if let Some(o) = orientation {
        img.apply_orientation(o);
    }
    Some(img)
}

/// A recognised image made ready to send: base64 data, its MIME type, and
/// the notes on what was done to it (converted, resized).
pub(crate) struct Prepared {
    pub data: String,
    pub mime: &'static str,
    pub hints: Vec<String>,
}

/// Decode, turn upright, convert and shrink `bytes` as the reference's
/// image processing does; the error is the note saying why it is left out.
pub(crate) fn prepare(bytes: Vec<u8>, kind: Kind) -> Result<Prepared, ImageOmitted> {
    let (data, mime, img) = if kind == Kind::Bmp {
        let Some(png) = decode_upright(&bytes, kind).and_then(|img| encode_png(&img)) else {
            return Err(ImageOmitted::Unconvertible);
        };
        let img = decode_upright(&png, Kind::Png);
        (png, PNG_MIME, img)
    } else {
        let img = decode_upright(&bytes, kind);
        (bytes, kind.mime(), img)
    };
    let img = img.ok_or(ImageOmitted::TooLarge)?;
    let (w, h) = (img.width(), img.height());
    let within = w <= READ_IMAGE_MAX_DIMENSION && h <= READ_IMAGE_MAX_DIMENSION && fits(&data);
    let (data, mime, resized_note) = if within {
        (data, mime, None)
    } else {
        let (out, out_mime, dw, dh) = shrink(&img).ok_or(ImageOmitted::TooLarge)?;
        let factor = js_to_fixed_2(f64::from(w) / f64::from(dw));
        (out, out_mime, Some(msg::image_resized(w, h, dw, dh, &factor)))
    };
    let mut hints = Vec::new();
    if kind == Kind::Bmp {
        hints.push(msg::image_converted(kind.mime(), mime));
    }
    hints.extend(resized_note);
    Ok(Prepared { data: base64::engine::general_purpose::STANDARD.encode(&data), mime, hints })
}

/// Turn the bytes of a recognised image into what `read` returns.
pub(super) fn process(bytes: Vec<u8>, kind: Kind) -> Processed {
    match prepare(bytes, kind) {
        Ok(p) => {
            let mut text = msg::image_read(p.mime);
            for hint in &p.hints {
                text.push('\n');
                text.push_str(hint);
            }
            Processed { text, image: Some((p.data, p.mime)) }
        }
        Err(note) => Processed::omitted(kind, &note.to_string()),
    }
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

    fn with_declared_size(mut b: Vec<u8>, size: u32) -> Vec<u8> {
        b[2..6].copy_from_slice(&size.to_le_bytes());
        b
    }

    fn png_chunks(chunks: &[(&[u8; 4], usize)]) -> Vec<u8> {
        let mut b = PNG_SIGNATURE.to_vec();
        for (name, len) in chunks {
            b.extend_from_slice(&(*len as u32).to_be_bytes());
            b.extend_from_slice(*name);
            b.extend(std::iter::repeat_n(0u8, len + 4));
        }
        b
    }

    #[test]
    fn formats_the_reference_does_not_send_are_text() {
        assert_eq!(detect(b"\xFF\xD8\xFF\xF7hello"), None, "JPEG-LS");
        assert_eq!(detect(b"\xFF\xD8\xFF\xE0hello"), Some(Kind::Jpeg));
        assert_eq!(detect(b"\x89PNG\r\n\x1a\n\0\0\0\x0cIHDR"), None, "IHDR of 12 bytes");
        assert_eq!(detect(&png_chunks(&[(b"IHDR", 13), (b"acTL", 8), (b"IDAT", 10)])), None, "animated");
        assert_eq!(detect(&png_chunks(&[(b"IHDR", 13), (b"IDAT", 10), (b"acTL", 8)])), Some(Kind::Png));
        assert_eq!(detect(&png_chunks(&[(b"IHDR", 13), (b"tEXt", 9000), (b"acTL", 8)])[..HEAD_BYTES]), Some(Kind::Png));
        assert_eq!(detect(&with_declared_size(bmp(40, 54, 1, 24), 25)), None, "declared size under 26");
        assert_eq!(detect(&with_declared_size(bmp(40, 54, 1, 24), 54)), None, "pixel data past the file");
        assert_eq!(detect(&with_declared_size(bmp(40, 54, 1, 24), 55)), Some(Kind::Bmp));
        assert_eq!(detect(&with_declared_size(bmp(40, 54, 1, 24), 0)), Some(Kind::Bmp));
    }

    /// A JPEG of `w` x `h` with an EXIF APP1 segment giving `orientation`.
    fn jpeg_with_orientation(w: u32, h: u32, orientation: u16) -> Vec<u8> {
        let img = DynamicImage::ImageRgb8(image::RgbImage::new(w, h));
        let plain = encode_jpeg(&img, 80).unwrap();
        let mut tiff = b"MM\0\x2a\0\0\0\x08\0\x01".to_vec();
        tiff.extend_from_slice(&[0x01, 0x12, 0, 3, 0, 0, 0, 1]);
        tiff.extend_from_slice(&orientation.to_be_bytes());
        tiff.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        let mut app1 = b"Exif\0\0".to_vec();
        app1.extend_from_slice(&tiff);
        let mut out = plain[..2].to_vec();
        out.extend_from_slice(&[0xFF, 0xE1]);
        out.extend_from_slice(&((app1.len() + 2) as u16).to_be_bytes());
        out.extend_from_slice(&app1);
        out.extend_from_slice(&plain[2..]);
        out
    }

    #[test]
    fn exif_orientation_turns_the_picture_before_it_is_measured() {
        let p = process(jpeg_with_orientation(2100, 10, 6), Kind::Jpeg);
        assert_eq!(
            p.text,
            "Read image file [image/jpeg]\n[Image: original 10x2100, displayed at 10x2000. \
             Multiply coordinates by 1.00 to map to original image.]"
        );
        let p = process(jpeg_with_orientation(2100, 10, 1), Kind::Jpeg);
        assert!(p.text.contains("original 2100x10, displayed at 2000x10"), "{}", p.text);
    }

    #[test]
    fn converted_bitmaps_are_rgba_png() {
        let mut b = bmp(40, 54, 1, 24);
        b[18..22].copy_from_slice(&2i32.to_le_bytes());
        b[22..26].copy_from_slice(&2i32.to_le_bytes());
        b.extend(std::iter::repeat_n(0u8, 54 - b.len()));
        b.extend_from_slice(&[0, 0, 255, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0]);
        let p = process(b, Kind::Bmp);
        assert_eq!(p.text, "Read image file [image/png]\n[Image converted from image/bmp to image/png.]");
        let (data, mime) = p.image.unwrap();
        assert_eq!(mime, "image/png");
        let png = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
        assert_eq!(png[25], 6, "colour type RGBA");
    }

    #[test]
    fn downscaling_rounds_down_and_stops_at_one_pixel() {
        assert_eq!(downscaled(2000), 1500);
        assert_eq!(downscaled(3), 2);
        assert_eq!(downscaled(2), 1);
        assert_eq!(downscaled(1), 1);
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
