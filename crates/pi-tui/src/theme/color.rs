//! Theme colour values: `#rgb`/`#rrggbb`, `okhsl(h s% l%)`, `oklch(L% C h)`,
//! a 256-colour index, a variable name, or `""` (the terminal's default),
//! turned into what the terminal can show (truecolor or the nearest of the
//! 256-colour palette).

pub use super::error::ColourError;

/// A colour as a theme file gives it, resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// sRGB, 0–255 each.
    Rgb(u8, u8, u8),
    /// A 256-colour palette index.
    Index(u8),
    /// The terminal's default colour.
    Default,
}

/// Parse a literal colour (not a variable reference); `None` when `s` is not
/// a colour literal (it may then be a variable name).
pub fn parse_literal(s: &str) -> Option<Result<Value, ColourError>> {
    let t = s.trim();
    if t.is_empty() {
        return Some(Ok(Value::Default));
    }
    if let Some(hex) = t.strip_prefix('#') {
        return Some(parse_hex(hex).ok_or_else(|| ColourError::Hex(s.to_string())));
    }
    for (prefix, f) in [("okhsl(", okhsl as fn(f64, f64, f64) -> Value), ("oklch(", oklch)] {
        if let Some(body) = t.strip_prefix(prefix) {
            return Some(
                parse_triple(body).map(|(a, b, c)| f(a, b, c)).ok_or_else(|| ColourError::Function(s.to_string())),
            );
        }
    }
    None
}

/// A JSON number used as a colour: a palette index 0–255.
pub fn parse_index(n: &serde_json::Number) -> Result<Value, ColourError> {
    n.as_u64().filter(|v| *v <= 255).map(|v| Value::Index(v as u8)).ok_or_else(|| ColourError::Index(n.clone()))
}

fn parse_hex(h: &str) -> Option<Value> {
    let digits: Vec<u8> = h.chars().map(|c| c.to_digit(16).map(|d| d as u8)).collect::<Option<_>>()?;
    match digits.as_slice() {
        [r, g, b] => Some(Value::Rgb(r * 17, g * 17, b * 17)),
        [r1, r2, g1, g2, b1, b2] => Some(Value::Rgb(r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
        _ => None,
    }
}

/// `a b c)` with optional `%` signs: the three numbers, percentages as fractions.
fn parse_triple(body: &str) -> Option<(f64, f64, f64)> {
    let inner = body.strip_suffix(')')?;
    let parts: Vec<f64> = inner
        .split([' ', ','])
        .filter(|p| !p.is_empty())
        .map(|p| match p.strip_suffix('%') {
            Some(n) => n.parse::<f64>().ok().map(|v| v / 100.0),
            None => p.parse::<f64>().ok(),
        })
        .collect::<Option<_>>()?;
    match parts.as_slice() {
        [a, b, c] if a.is_finite() && b.is_finite() && c.is_finite() => Some((*a, *b, *c)),
        _ => None,
    }
}

fn srgb_transfer(x: f64) -> f64 {
    if x >= 0.003_130_8 { 1.055 * x.powf(1.0 / 2.4) - 0.055 } else { 12.92 * x }
}

fn to_byte(x: f64) -> u8 {
    (srgb_transfer(x).clamp(0.0, 1.0) * 255.0).round() as u8
}

/// OKLab to linear sRGB.
fn oklab_to_linear(l: f64, a: f64, b: f64) -> [f64; 3] {
    let l_ = l + 0.396_337_777_4 * a + 0.215_803_757_3 * b;
    let m_ = l - 0.105_561_345_8 * a - 0.063_854_172_8 * b;
    let s_ = l - 0.089_484_177_5 * a - 1.291_485_548 * b;
    let (l3, m3, s3) = (l_ * l_ * l_, m_ * m_ * m_, s_ * s_ * s_);
    [
        4.076_741_662_1 * l3 - 3.307_711_591_3 * m3 + 0.230_969_929_2 * s3,
        -1.268_438_004_6 * l3 + 2.609_757_401_1 * m3 - 0.341_319_396_5 * s3,
        -0.004_196_086_3 * l3 - 0.703_418_614_7 * m3 + 1.707_614_701 * s3,
    ]
}

fn rgb(lin: [f64; 3]) -> Value {
    Value::Rgb(to_byte(lin[0]), to_byte(lin[1]), to_byte(lin[2]))
}

/// `oklch(L C h)`: lightness (fraction), chroma, hue in degrees; out-of-gamut
/// colours keep their lightness and hue and lose chroma until they fit.
pub fn oklch(l: f64, c: f64, h: f64) -> Value {
    let (sin, cos) = h.to_radians().sin_cos();
    let in_gamut = |c: f64| oklab_to_linear(l, c * cos, c * sin).iter().all(|v| (-1e-4..=1.0 + 1e-4).contains(v));
    let (mut lo, mut hi) = (0.0, c.max(0.0));
    if !in_gamut(hi) {
        for _ in 0..24 {
            let mid = (lo + hi) / 2.0;
            if in_gamut(mid) { lo = mid } else { hi = mid }
        }
        hi = lo;
    }
    rgb(oklab_to_linear(l, hi * cos, hi * sin))
}

/// The cone coefficients of OKLab's `l m s` per unit of `a` and `b`.
fn k_lms(a: f64, b: f64) -> [f64; 3] {
    [
        0.396_337_777_4 * a + 0.215_803_757_3 * b,
        -0.105_561_345_8 * a - 0.063_854_172_8 * b,
        -0.089_484_177_5 * a - 1.291_485_548 * b,
    ]
}

/// The largest saturation `C/L` inside sRGB for hue `(a, b)` (Ottosson's fit
/// plus one Halley step).
fn max_saturation(a: f64, b: f64) -> f64 {
    let (k, w) = if -1.881_703_28 * a - 0.809_364_93 * b > 1.0 {
        (
            [1.190_862_77, 1.765_767_28, 0.596_626_41, 0.755_151_97, 0.567_712_45],
            [4.076_741_662_1, -3.307_711_591_3, 0.230_969_929_2],
        )
    } else if 1.814_441_04 * a - 1.194_452_76 * b > 1.0 {
        (
            [0.739_565_15, -0.459_544_04, 0.082_854_27, 0.125_410_7, 0.145_032_04],
            [-1.268_438_004_6, 2.609_757_401_1, -0.341_319_396_5],
        )
    } else {
        (
            [1.357_336_52, -0.009_157_99, -1.151_302_1, -0.505_596_06, 0.006_921_67],
            [-0.004_196_086_3, -0.703_418_614_7, 1.707_614_701],
        )
    };
    let mut s = k[0] + k[1] * a + k[2] * b + k[3] * a * a + k[4] * a * b;
    let kl = k_lms(a, b);
    let c: Vec<f64> = kl.iter().map(|k| 1.0 + s * k).collect();
    let f = w[0] * c[0].powi(3) + w[1] * c[1].powi(3) + w[2] * c[2].powi(3);
    let f1 = (0..3).map(|i| w[i] * 3.0 * kl[i] * c[i] * c[i]).sum::<f64>();
    let f2 = (0..3).map(|i| w[i] * 6.0 * kl[i] * kl[i] * c[i]).sum::<f64>();
    s -= f * f1 / (f1 * f1 - 0.5 * f * f2);
    s
}

/// The lightness and chroma of the most saturated colour of hue `(a, b)`.
fn cusp(a: f64, b: f64) -> (f64, f64) {
    let s = max_saturation(a, b);
    let lin = oklab_to_linear(1.0, s * a, s * b);
    let l = (1.0 / lin[0].max(lin[1]).max(lin[2])).cbrt();
    (l, l * s)
}

/// Where the line from `(l0, 0)` to `(l1, c1)` leaves the sRGB gamut, as a
/// fraction of the way.
fn gamut_intersection(a: f64, b: f64, l1: f64, c1: f64, l0: f64, cusp: (f64, f64)) -> f64 {
    let (cl, cc) = cusp;
    if (l1 - l0) * cc - (cl - l0) * c1 <= 0.0 {
        return cc * l0 / (c1 * cl + cc * (l0 - l1));
    }
    let mut t = cc * (l0 - 1.0) / (c1 * (cl - 1.0) + cc * (l0 - l1));
    let kl = k_lms(a, b);
    let dl = l1 - l0;
    let dt: Vec<f64> = kl.iter().map(|k| dl + c1 * k).collect();
    let l = l0 * (1.0 - t) + t * l1;
    let c = t * c1;
    let u: Vec<f64> = kl.iter().map(|k| l + c * k).collect();
    let v: Vec<f64> = u.iter().map(|x| x * x * x).collect();
    let d1: Vec<f64> = (0..3).map(|i| 3.0 * dt[i] * u[i] * u[i]).collect();
    let d2: Vec<f64> = (0..3).map(|i| 6.0 * dt[i] * dt[i] * u[i]).collect();
    let rows = [
        [4.076_741_662_1, -3.307_711_591_3, 0.230_969_929_2],
        [-1.268_438_004_6, 2.609_757_401_1, -0.341_319_396_5],
        [-0.004_196_086_3, -0.703_418_614_7, 1.707_614_701],
    ];
    let step = rows
        .iter()
        .map(|w| {
            let dot = |x: &[f64]| w[0] * x[0] + w[1] * x[1] + w[2] * x[2];
            let (f, f1, f2) = (dot(&v) - 1.0, dot(&d1), dot(&d2));
            let u = f1 / (f1 * f1 - 0.5 * f * f2);
            if u >= 0.0 { -f * u } else { f64::MAX }
        })
        .fold(f64::MAX, f64::min);
    t += step;
    t
}

fn toe_inv(x: f64) -> f64 {
    let (k1, k2) = (0.206, 0.03);
    let k3 = (1.0 + k1) / (1.0 + k2);
    (x * x + k1 * x) / (k3 * (x + k2))
}

/// `okhsl(h s% l%)`: Ottosson's OKHSL (hue in degrees, saturation relative to
/// the gamut, perceptual lightness), always inside sRGB.
pub fn okhsl(h: f64, s: f64, l: f64) -> Value {
    if l >= 1.0 {
        return Value::Rgb(255, 255, 255);
    }
    if l <= 0.0 {
        return Value::Rgb(0, 0, 0);
    }
    let (b_, a_) = (h / 360.0 * std::f64::consts::TAU).sin_cos();
    let ll = toe_inv(l);
    let cusp = cusp(a_, b_);
    let c_max = gamut_intersection(a_, b_, ll, 1.0, ll, cusp);
    let (st_s, st_t) = (cusp.1 / cusp.0, cusp.1 / (1.0 - cusp.0));
    let k = c_max / (ll * st_s).min((1.0 - ll) * st_t);
    let mid_s = 0.115_169_93
        + 1.0
            / (7.447_789_7
                + 4.159_012_4 * b_
                + a_ * (-2.195_573_47
                    + 1.751_984_01 * b_
                    + a_ * (-2.137_049_48 - 10.023_010_43 * b_
                        + a_ * (-4.248_945_61 + 5.387_708_19 * b_ + 4.698_910_13 * a_))));
    let mid_t = 0.112_396_42
        + 1.0
            / (1.613_203_2 - 0.681_243_79 * b_
                + a_ * (0.403_706_12
                    + 0.901_481_23 * b_
                    + a_ * (-0.270_879_43
                        + 0.612_239_9 * b_
                        + a_ * (0.002_992_15 - 0.453_995_68 * b_ - 0.146_618_72 * a_))));
    let (ca, cb) = (ll * mid_s, (1.0 - ll) * mid_t);
    let c_mid = 0.9 * k * (1.0 / (1.0 / ca.powi(4) + 1.0 / cb.powi(4))).sqrt().sqrt();
    let (ca, cb) = (ll * 0.4, (1.0 - ll) * 0.8);
    let c_0 = (1.0 / (1.0 / (ca * ca) + 1.0 / (cb * cb))).sqrt();
    let (mid, mid_inv) = (0.8, 1.25);
    let c = if s < mid {
        let t = mid_inv * s;
        let k1 = mid * c_0;
        let k2 = 1.0 - k1 / c_mid;
        t * k1 / (1.0 - k2 * t)
    } else {
        let t = (s - mid) / (1.0 - mid);
        let k1 = (1.0 - mid) * c_mid * c_mid * mid_inv * mid_inv / c_0;
        let k2 = 1.0 - k1 / (c_max - c_mid);
        c_mid + t * k1 / (1.0 - k2 * t)
    };
    rgb(oklab_to_linear(ll, c * a_, c * b_))
}

/// The xterm 256-colour palette entry `i` as sRGB.
pub fn palette_rgb(i: u8) -> (u8, u8, u8) {
    const BASE: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    const STEPS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    match i {
        0..=15 => BASE[i as usize],
        16..=231 => {
            let n = i - 16;
            (STEPS[(n / 36) as usize], STEPS[(n / 6 % 6) as usize], STEPS[(n % 6) as usize])
        }
        _ => {
            let v = 8 + (i - 232) * 10;
            (v, v, v)
        }
    }
}

/// The palette index (16–255) nearest to an sRGB colour.
pub fn nearest_index(r: u8, g: u8, b: u8) -> u8 {
    let dist = |i: u8| {
        let (pr, pg, pb) = palette_rgb(i);
        let d = |x: u8, y: u8| (x as i32 - y as i32).pow(2);
        // Weighted for the eye's sensitivity.
        2 * d(r, pr) + 4 * d(g, pg) + 3 * d(b, pb)
    };
    (16..=255u8).min_by_key(|i| dist(*i)).unwrap_or(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(v: Value, (r, g, b): (u8, u8, u8)) -> bool {
        match v {
            Value::Rgb(x, y, z) => [(x, r), (y, g), (z, b)].iter().all(|(a, b)| (*a as i32 - *b as i32).abs() <= 2),
            _ => false,
        }
    }

    #[test]
    fn literals_parse() {
        assert_eq!(parse_literal("#0af"), Some(Ok(Value::Rgb(0, 170, 255))));
        assert_eq!(parse_literal("#102030"), Some(Ok(Value::Rgb(16, 32, 48))));
        assert_eq!(parse_literal(""), Some(Ok(Value::Default)));
        assert!(matches!(parse_literal("#12"), Some(Err(_))));
        assert!(matches!(parse_literal("okhsl(1 2)"), Some(Err(_))));
        assert_eq!(parse_literal("primary"), None);
    }

    #[test]
    fn okhsl_and_oklch_land_in_srgb() {
        // Grey has no hue: equal channels.
        let Value::Rgb(r, g, b) = okhsl(0.0, 0.0, 0.5) else { panic!() };
        assert!(r == g && g == b && (110..=125).contains(&r), "{r} {g} {b}");
        assert!(close(okhsl(0.0, 0.0, 1.0), (255, 255, 255)));
        assert!(close(oklch(0.627_955, 0.257_683, 29.234), (255, 0, 0)), "{:?}", oklch(0.627_955, 0.257_683, 29.234));
        // Full saturation stays in gamut for every hue.
        for h in (0..360).step_by(15) {
            assert!(matches!(okhsl(h as f64, 1.0, 0.6), Value::Rgb(..)));
        }
    }

    #[test]
    fn the_nearest_palette_entry() {
        assert_eq!(nearest_index(255, 0, 0), 196);
        assert_eq!(nearest_index(128, 128, 128), 244);
        assert_eq!(palette_rgb(16), (0, 0, 0));
    }
}
