//! `read` through the one dispatch path, called as `pi tool read …` calls
//! it: windows, notices, errors, paths and images, with the exact texts the
//! reference (Pi 1.6.0) produces.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use serde_json::{Value, json};

use crate::support::{self, Raw, run_raw};

fn read(args: Value, cwd: &Path) -> Raw {
    run_raw("read", &args, cwd)
}

fn ok_text(args: Value, cwd: &Path) -> String {
    support::ok_text("read", args, cwd)
}

fn err_text(args: Value, cwd: &Path) -> String {
    support::err_text("read", args, cwd)
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("{i}\n")).collect()
}

fn lines(a: usize, b: usize) -> String {
    (a..=b).map(|i| i.to_string()).collect::<Vec<_>>().join("\n")
}

// ---------- windows and line counting ----------

#[test]
fn small_file_is_returned_verbatim_without_details() {
    let d = dir();
    write(d.path(), "abc.txt", "a\nb\nc\n");
    let out = read(json!({"path": "abc.txt"}), d.path());
    assert_eq!(out.text(), "a\nb\nc\n");
    assert_eq!(out.json["details"], Value::Null);
    assert_eq!(out.json["content"].as_array().unwrap().len(), 1);
    assert_eq!(out.code, 0);
}

#[test]
fn a_final_newline_adds_an_empty_last_line() {
    let d = dir();
    write(d.path(), "abc.txt", "a\nb\nc\n");
    assert_eq!(ok_text(json!({"path": "abc.txt", "offset": 4}), d.path()), "");
    assert_eq!(ok_text(json!({"path": "abc.txt", "offset": 3}), d.path()), "c\n");
    assert_eq!(
        err_text(json!({"path": "abc.txt", "offset": 5}), d.path()),
        "Offset 5 is beyond end of file (4 lines total)"
    );
}

#[test]
fn offset_beyond_end_on_a_file_without_final_newline() {
    let d = dir();
    write(d.path(), "three.txt", "a\nb\nc");
    assert_eq!(
        err_text(json!({"path": "three.txt", "offset": 100}), d.path()),
        "Offset 100 is beyond end of file (3 lines total)"
    );
}

#[test]
fn limit_reports_the_remaining_lines() {
    let d = dir();
    write(d.path(), "h.txt", numbered(100));
    assert_eq!(
        ok_text(json!({"path": "h.txt", "limit": 10}), d.path()),
        format!("{}\n\n[91 more lines in file. Use offset=11 to continue.]", lines(1, 10))
    );
    assert_eq!(
        ok_text(json!({"path": "h.txt", "offset": 41, "limit": 20}), d.path()),
        format!("{}\n\n[41 more lines in file. Use offset=61 to continue.]", lines(41, 60))
    );
    // A window that reaches the end has no notice.
    assert_eq!(ok_text(json!({"path": "h.txt", "offset": 51}), d.path()), format!("{}\n", lines(51, 100)));
    assert_eq!(
        ok_text(json!({"path": "h.txt", "offset": 91, "limit": 1000}), d.path()),
        format!("{}\n", lines(91, 100))
    );
}

#[test]
fn offset_and_limit_edge_values_follow_the_reference_arithmetic() {
    let d = dir();
    write(d.path(), "h.txt", numbered(100));
    let first3 = format!("{}\n\n[98 more lines in file. Use offset=4 to continue.]", lines(1, 3));
    assert_eq!(ok_text(json!({"path": "h.txt", "offset": 0, "limit": 3}), d.path()), first3);
    assert_eq!(ok_text(json!({"path": "h.txt", "offset": -5, "limit": 3}), d.path()), first3);
    assert_eq!(
        ok_text(json!({"path": "h.txt", "offset": 1.5, "limit": 3}), d.path()),
        format!("{}\n\n[97.5 more lines in file. Use offset=4.5 to continue.]", lines(1, 3))
    );
    assert_eq!(
        ok_text(json!({"path": "h.txt", "offset": 2, "limit": 1.5}), d.path()),
        "2\n\n[98.5 more lines in file. Use offset=3.5 to continue.]"
    );
    assert_eq!(
        ok_text(json!({"path": "h.txt", "offset": 2.5, "limit": 2.5}), d.path()),
        "2\n3\n4\n\n[97 more lines in file. Use offset=5 to continue.]"
    );
    assert_eq!(
        ok_text(json!({"path": "h.txt", "limit": 0}), d.path()),
        "\n\n[101 more lines in file. Use offset=1 to continue.]"
    );
    // A negative limit counts from the end, as JavaScript's slice does.
    assert_eq!(
        ok_text(json!({"path": "h.txt", "limit": -3}), d.path()),
        format!("{}\n\n[104 more lines in file. Use offset=-2 to continue.]", lines(1, 98))
    );
    assert_eq!(
        ok_text(json!({"path": "h.txt", "offset": 3, "limit": -1e300}), d.path()),
        "\n\n[1e+300 more lines in file. Use offset=-1e+300 to continue.]"
    );
    assert_eq!(
        err_text(json!({"path": "h.txt", "offset": 1e300}), d.path()),
        "Offset 1e+300 is beyond end of file (101 lines total)"
    );
    assert_eq!(
        ok_text(json!({"path": "h.txt", "offset": 3, "limit": 1e300}), d.path()),
        format!("{}\n", lines(3, 100))
    );
    // Coerced like the reference's schema validation: "2" is 2.
    assert_eq!(
        ok_text(json!({"path": "h.txt", "offset": "99", "limit": "1"}), d.path()),
        "99\n\n[2 more lines in file. Use offset=100 to continue.]"
    );
}

#[test]
fn bad_arguments_are_invalid_calls() {
    let d = dir();
    write(d.path(), "h.txt", "x\n");
    let out = support::pi_tool("read", r#"{"path":"h.txt","offset":"abc"}"#, d.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Validation failed for tool \"read\""));
    let out = support::pi_tool("read", "{}", d.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("path"));
}

#[test]
fn empty_files_and_a_lone_newline() {
    let d = dir();
    write(d.path(), "empty.txt", "");
    write(d.path(), "nl.txt", "\n");
    assert_eq!(ok_text(json!({"path": "empty.txt"}), d.path()), "");
    assert_eq!(ok_text(json!({"path": "empty.txt", "offset": 1}), d.path()), "");
    assert_eq!(
        err_text(json!({"path": "empty.txt", "offset": 2}), d.path()),
        "Offset 2 is beyond end of file (1 lines total)"
    );
    assert_eq!(ok_text(json!({"path": "nl.txt"}), d.path()), "\n");
    assert_eq!(ok_text(json!({"path": "nl.txt", "offset": 2}), d.path()), "");
    assert_eq!(
        ok_text(json!({"path": "nl.txt", "limit": 1}), d.path()),
        "\n\n[1 more lines in file. Use offset=2 to continue.]"
    );
}

#[test]
fn crlf_and_bom_are_kept() {
    let d = dir();
    write(d.path(), "crlf.txt", "a\r\nb\r\nc\r\n");
    write(d.path(), "bom.txt", "\u{feff}hello\n");
    assert_eq!(ok_text(json!({"path": "crlf.txt"}), d.path()), "a\r\nb\r\nc\r\n");
    assert_eq!(
        ok_text(json!({"path": "crlf.txt", "limit": 1}), d.path()),
        "a\r\n\n[3 more lines in file. Use offset=2 to continue.]"
    );
    assert_eq!(ok_text(json!({"path": "bom.txt"}), d.path()), "\u{feff}hello\n");
}

#[test]
fn invalid_utf8_is_decoded_lossily() {
    let d = dir();
    write(d.path(), "bad.txt", b"ab\xffcd\xe2\x82\nx\xc3");
    assert_eq!(ok_text(json!({"path": "bad.txt"}), d.path()), "ab\u{FFFD}cd\u{FFFD}\nx\u{FFFD}");
}

#[test]
fn binary_files_are_read_as_text_without_panicking() {
    let d = dir();
    let mut bytes = b"\x00\x01".to_vec();
    let mut x: u32 = 12345;
    for _ in 0..200_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        bytes.push((x >> 16) as u8);
    }
    write(d.path(), "blob.bin", &bytes);
    let out = read(json!({"path": "blob.bin"}), d.path());
    assert!(!out.is_error());
    let text = out.text();
    assert!(text.contains('\u{FFFD}'));
    assert!(text.len() <= 51200 + 200, "cut at the byte limit: {}", text.len());
    assert!(text.contains("(50.0KB limit)") || text.starts_with("[Line 1 is "), "{}", &text[text.len() - 100..]);
}

// ---------- truncation ----------

#[test]
fn line_limit_notice_and_truncation_details() {
    let d = dir();
    write(d.path(), "l.txt", numbered(2500));
    let out = read(json!({"path": "l.txt"}), d.path());
    let kept = lines(1, 2000);
    assert_eq!(out.text(), format!("{kept}\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]"));
    let t = &out.json["details"]["truncation"];
    let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "content",
            "truncated",
            "truncatedBy",
            "totalLines",
            "totalBytes",
            "outputLines",
            "outputBytes",
            "lastLinePartial",
            "firstLineExceedsLimit",
            "maxLines",
            "maxBytes"
        ]
    );
    assert_eq!(t["content"], json!(kept));
    assert_eq!(t["truncated"], json!(true));
    assert_eq!(t["truncatedBy"], json!("lines"));
    assert_eq!(t["totalLines"], json!(2500));
    assert_eq!(t["totalBytes"], json!(numbered(2500).len()));
    assert_eq!(t["outputLines"], json!(2000));
    assert_eq!(t["outputBytes"], json!(kept.len()));
    assert_eq!(t["lastLinePartial"], json!(false));
    assert_eq!(t["firstLineExceedsLimit"], json!(false));
    assert_eq!(t["maxLines"], json!(2000));
    assert_eq!(t["maxBytes"], json!(51200));
    // Continue where the notice says.
    assert_eq!(ok_text(json!({"path": "l.txt", "offset": 2001}), d.path()), format!("{}\n", lines(2001, 2500)));
    // A fractional offset is carried into the notice as the reference does.
    let frac = ok_text(json!({"path": "l.txt", "offset": 1.5}), d.path());
    assert!(
        frac.ends_with("\n\n[Showing lines 1.5-2000.5 of 2501. Use offset=2001.5 to continue.]"),
        "{}",
        &frac[frac.len() - 80..]
    );
}

#[test]
fn byte_limit_notice() {
    let d = dir();
    let content: String = (0..500).map(|i| format!("{i:03}{}\n", "x".repeat(206))).collect();
    write(d.path(), "wide.txt", &content);
    let out = read(json!({"path": "wide.txt"}), d.path());
    let kept = content.lines().take(243).collect::<Vec<_>>().join("\n");
    assert_eq!(
        out.text(),
        format!("{kept}\n\n[Showing lines 1-243 of 501 (50.0KB limit). Use offset=244 to continue.]")
    );
    let t = &out.json["details"]["truncation"];
    assert_eq!(t["truncatedBy"], json!("bytes"));
    assert_eq!((t["totalLines"].as_u64(), t["totalBytes"].as_u64()), (Some(500), Some(105000)));
    assert_eq!((t["outputLines"].as_u64(), t["outputBytes"].as_u64()), (Some(243), Some(51029)));
    // With a limit, the byte limit still wins.
    let limited = ok_text(json!({"path": "wide.txt", "offset": 2, "limit": 400}), d.path());
    assert!(limited.ends_with("\n\n[Showing lines 2-244 of 501 (50.0KB limit). Use offset=245 to continue.]"));
}

#[test]
fn a_line_that_fills_the_byte_limit_exactly_is_reported_as_a_line_cut() {
    let d = dir();
    write(d.path(), "edge.txt", "a".repeat(51200) + "\n");
    let out = read(json!({"path": "edge.txt"}), d.path());
    assert_eq!(out.text(), format!("{}\n\n[Showing lines 1-1 of 2. Use offset=2 to continue.]", "a".repeat(51200)));
    assert_eq!(out.json["details"]["truncation"]["truncatedBy"], json!("lines"));
}

#[test]
fn first_line_over_the_byte_limit() {
    let d = dir();
    write(d.path(), "big.txt", "y".repeat(60000) + "\nsecond\n");
    let out = read(json!({"path": "@big.txt"}), d.path());
    assert_eq!(out.text(), "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' @big.txt | head -c 51200]");
    let t = &out.json["details"]["truncation"];
    assert_eq!(t["content"], json!(""));
    assert_eq!(t["firstLineExceedsLimit"], json!(true));
    assert_eq!(t["truncatedBy"], json!("bytes"));
    assert_eq!(
        (t["outputLines"].as_u64(), t["totalLines"].as_u64(), t["totalBytes"].as_u64()),
        (Some(0), Some(2), Some(60008))
    );
    // The path is shown as given; the line number is the offset.
    write(d.path(), "mid.txt", "x\n".to_string() + &"z".repeat(52000) + "\n");
    assert_eq!(
        ok_text(json!({"path": "./mid.txt", "offset": 2}), d.path()),
        "[Line 2 is 50.8KB, exceeds 50.0KB limit. Use bash: sed -n '2p' ./mid.txt | head -c 51200]"
    );
    assert_eq!(ok_text(json!({"path": "big.txt", "offset": 2}), d.path()), "second\n");
    // The reference fails on a fractional offset here (it looks up line 1.5).
    assert_eq!(
        err_text(json!({"path": "big.txt", "offset": 1.5}), d.path()),
        "The \"string\" argument must be of type string or an instance of Buffer or ArrayBuffer. Received undefined"
    );
}

// ---------- errors ----------

#[test]
fn file_system_errors_pass_through_in_nodes_words() {
    let d = dir();
    let root = d.path().canonicalize().unwrap();
    write(&root, "a.txt", "x");
    std::fs::create_dir(root.join("sub")).unwrap();
    std::os::unix::fs::symlink("loop2", root.join("loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", root.join("loop2")).unwrap();
    std::os::unix::fs::symlink("nowhere", root.join("broken")).unwrap();
    let abs = |n: &str| root.join(n).display().to_string();
    assert_eq!(
        err_text(json!({"path": "missing.txt"}), &root),
        format!("ENOENT: no such file or directory, access '{}'", abs("missing.txt"))
    );
    assert_eq!(err_text(json!({"path": "sub"}), &root), "EISDIR: illegal operation on a directory, read");
    assert_eq!(err_text(json!({"path": ""}), &root), "EISDIR: illegal operation on a directory, read");
    assert_eq!(
        err_text(json!({"path": "a.txt/x"}), &root),
        format!("ENOTDIR: not a directory, access '{}'", abs("a.txt/x"))
    );
    assert_eq!(
        err_text(json!({"path": "loop1"}), &root),
        format!("ELOOP: too many symbolic links encountered, access '{}'", abs("loop1"))
    );
    assert_eq!(
        err_text(json!({"path": "broken"}), &root),
        format!("ENOENT: no such file or directory, access '{}'", abs("broken"))
    );
    assert_eq!(
        err_text(json!({"path": "a\u{0}b"}), &root),
        format!(
            "The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received '{}\\x00b'",
            abs("a")
        )
    );
}

#[test]
fn special_files_do_not_hang() {
    let d = dir();
    assert_eq!(ok_text(json!({"path": "/dev/null"}), d.path()), "");
    // An endless device stops where Node's readFile gives up (2 GiB).
    let t0 = std::time::Instant::now();
    let text = err_text(json!({"path": "/dev/zero"}), d.path());
    assert!(text.starts_with("File size (") && text.ends_with(") is greater than 2 GiB"), "{text}");
    assert!(t0.elapsed() < std::time::Duration::from_secs(60));
    // A FIFO without a writer is not waited for.
    let fifo = d.path().join("fifo");
    if Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
        assert_eq!(ok_text(json!({"path": "fifo"}), d.path()), "");
    }
}

// ---------- paths ----------

#[test]
fn read_path_fallbacks_for_macos_and_editor_spellings() {
    let d = dir();
    write(d.path(), "Screenshot 2024-01-01 at 10.00.00\u{202F}PM.png", "am/pm\n");
    write(d.path(), "Shot at 9.15.00\u{202F}am.png", "lower\n");
    write(d.path(), "cafe\u{301}.txt", "nfd\n");
    write(d.path(), "it\u{2019}s.txt", "curly\n");
    write(d.path(), "e\u{301}t\u{2019}e.txt", "both\n");
    assert_eq!(ok_text(json!({"path": "Screenshot 2024-01-01 at 10.00.00 PM.png"}), d.path()), "am/pm\n");
    assert_eq!(ok_text(json!({"path": "Shot at 9.15.00 am.png"}), d.path()), "lower\n");
    assert_eq!(ok_text(json!({"path": "café.txt"}), d.path()), "nfd\n");
    assert_eq!(ok_text(json!({"path": "it's.txt"}), d.path()), "curly\n");
    assert_eq!(ok_text(json!({"path": "ét'e.txt"}), d.path()), "both\n");
}

// ---------- images ----------

fn encode(img: &image::DynamicImage, format: image::ImageFormat) -> Vec<u8> {
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), format).unwrap();
    out
}

fn gradient(w: u32, h: u32) -> image::DynamicImage {
    image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
    }))
}

fn image_block(out: &Raw) -> (Vec<u8>, String) {
    let block = &out.json["content"][1];
    assert_eq!(block["type"], json!("image"), "{}", out.json);
    let data = base64::engine::general_purpose::STANDARD.decode(block["data"].as_str().unwrap()).unwrap();
    (data, block["mimeType"].as_str().unwrap().to_string())
}

#[test]
fn images_are_recognised_by_content_not_name() {
    let d = dir();
    let img = gradient(4, 3);
    let png = encode(&img, image::ImageFormat::Png);
    let cases = [
        ("image.txt", png.clone(), "image/png"),
        ("photo.jpg", encode(&img, image::ImageFormat::Jpeg), "image/jpeg"),
        ("anim.gif", encode(&img, image::ImageFormat::Gif), "image/gif"),
        ("pic.webp", encode(&img, image::ImageFormat::WebP), "image/webp"),
    ];
    for (name, bytes, mime) in cases {
        write(d.path(), name, &bytes);
        let out = read(json!({"path": name}), d.path());
        assert_eq!(out.text(), format!("Read image file [{mime}]"), "{name}");
        let (data, got_mime) = image_block(&out);
        assert_eq!(got_mime, mime);
        assert_eq!(data, bytes, "{name} is sent unchanged");
        assert_eq!(out.json["details"], Value::Null);
    }
    // A `.png` holding text is text.
    write(d.path(), "fake.png", "not an image\n");
    assert_eq!(ok_text(json!({"path": "fake.png"}), d.path()), "not an image\n");
    // A PNG signature alone (no IHDR chunk) is text too, as in the reference.
    write(d.path(), "sig.png", b"\x89PNG\r\n\x1a\nGARBAGE");
    assert_eq!(ok_text(json!({"path": "sig.png"}), d.path()), "\u{FFFD}PNG\r\n\u{1a}\nGARBAGE");
    write(d.path(), "bm.txt", "BMW cars are fast and this line is long enough\n");
    assert_eq!(ok_text(json!({"path": "bm.txt"}), d.path()), "BMW cars are fast and this line is long enough\n");
}

#[test]
fn bmp_is_converted_to_png() {
    let d = dir();
    let img = gradient(5, 4);
    write(d.path(), "pic.bmp", encode(&img, image::ImageFormat::Bmp));
    let out = read(json!({"path": "pic.bmp"}), d.path());
    assert_eq!(out.text(), "Read image file [image/png]\n[Image converted from image/bmp to image/png.]");
    let (data, mime) = image_block(&out);
    assert_eq!(mime, "image/png");
    let back = image::load_from_memory_with_format(&data, image::ImageFormat::Png).unwrap();
    assert_eq!((back.width(), back.height()), (5, 4));
    assert_eq!(back.to_rgb8(), img.to_rgb8());
}

#[test]
fn large_images_are_resized_to_2000_pixels_with_a_note() {
    let d = dir();
    write(d.path(), "big.png", encode(&gradient(3000, 1500), image::ImageFormat::Png));
    let out = read(json!({"path": "big.png"}), d.path());
    let text = out.text();
    assert!(text.starts_with("Read image file [image/"), "{text}");
    assert!(
        text.ends_with("\n[Image: original 3000x1500, displayed at 2000x1000. Multiply coordinates by 1.50 to map to original image.]"),
        "{text}"
    );
    let (data, mime) = image_block(&out);
    assert!(text.starts_with(&format!("Read image file [{mime}]")));
    let back = image::load_from_memory(&data).unwrap();
    assert_eq!((back.width(), back.height()), (2000, 1000));

    write(d.path(), "wide.bmp", encode(&gradient(2500, 100), image::ImageFormat::Bmp));
    let out = read(json!({"path": "wide.bmp"}), d.path());
    assert_eq!(
        out.text(),
        format!(
            "Read image file [{}]\n[Image converted from image/bmp to image/png.]\n[Image: original 2500x100, displayed at 2000x80. Multiply coordinates by 1.25 to map to original image.]",
            image_block(&out).1
        )
    );
    // Too thin to keep a pixel after scaling: left out.
    write(d.path(), "thread.png", encode(&gradient(7000, 1), image::ImageFormat::Png));
    assert_eq!(
        ok_text(json!({"path": "thread.png"}), d.path()),
        "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]"
    );
}

#[test]
fn broken_images_are_reported_not_sent() {
    let d = dir();
    write(d.path(), "bad.jpg", b"\xFF\xD8\xFFGARBAGE");
    let out = read(json!({"path": "bad.jpg"}), d.path());
    assert_eq!(
        out.text(),
        "Read image file [image/jpeg]\n[Image omitted: could not be resized below the inline image size limit.]"
    );
    assert_eq!(out.json["content"].as_array().unwrap().len(), 1);
    let mut bmp = encode(&gradient(4, 3), image::ImageFormat::Bmp);
    bmp.truncate(60);
    write(d.path(), "cut.bmp", bmp);
    assert_eq!(
        ok_text(json!({"path": "cut.bmp"}), d.path()),
        "Read image file [image/bmp]\n[Image omitted: could not be converted to a supported inline image format.]"
    );
}

// ---------- memory ----------

#[test]
fn file_url_errors_and_parts() {
    let d = dir();
    write(d.path(), "f.txt", "top\n");
    let host = r#"File URL host must be "localhost" or empty on linux"#;
    assert_eq!(err_text(json!({"path": "file://f.txt"}), d.path()), host);
    assert_eq!(
        err_text(json!({"path": "file:///no%2Fpe"}), d.path()),
        "File URL path must not include encoded / characters"
    );
    assert_eq!(err_text(json!({"path": "file:///%"}), d.path()), "URI malformed");
    let url = format!("file://{}/f.txt?x=1#frag", d.path().display());
    assert_eq!(ok_text(json!({"path": url}), d.path()), "top\n");
}

#[test]
fn fallbacks_skip_broken_symlinks() {
    let d = dir();
    std::os::unix::fs::symlink(d.path().join("gone"), d.path().join("it's.txt")).unwrap();
    write(d.path(), "it\u{2019}s.txt", "curly\n");
    assert_eq!(ok_text(json!({"path": "it's.txt"}), d.path()), "curly\n");
}
