//! Tool-call ids as Mistral takes them: exactly nine ASCII letters and
//! digits. Ids that came from another model (another API's `call_…`,
//! `toolu_…`, or `<call_id>|<item id>`) are turned into such an id the way the
//! reference does it, so a conversation carried over gives the same requests:
//! the id's ASCII letters and digits when there are exactly nine, otherwise
//! the first nine base-36 digits of a 53-bit `cyrb53` hash (Bryc's public
//! domain string hash, seed 0) of those letters and digits (of the whole id
//! when it has none).

/// The length of a Mistral tool-call id.
pub(crate) const MISTRAL_ID_LEN: usize = 9;

/// The Mistral form of a tool-call id from another model.
pub(crate) fn normalize(id: &str) -> String {
    let kept: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    if kept.len() == MISTRAL_ID_LEN {
        return kept;
    }
    let source = if kept.is_empty() { id } else { &kept };
    let (h1, h2) = cyrb53_halves(source);
    let mut out = base36(u64::from(h2));
    out.push_str(&base36(u64::from(h1)));
    out.truncate(MISTRAL_ID_LEN);
    while out.len() < MISTRAL_ID_LEN {
        out.push('0');
    }
    out
}

/// The two 32-bit halves of `cyrb53` over the text's UTF-16 code units:
/// `(h1, h2)`, where the 53-bit hash is `(h2 & 0x1fffff) << 32 | h1`.
fn cyrb53_halves(s: &str) -> (u32, u32) {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in s.encode_utf16() {
        let ch = u32::from(unit);
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507);
    h1 ^= (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507);
    h2 ^= (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    (h1, h2)
}

/// `n` in base 36, lower case.
fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each pair was measured with the reference: a conversation with these
    /// tool-call ids from Chat Completions, continued on Mistral.
    #[test]
    fn ids_from_other_models_match_the_reference() {
        let cases = [
            ("a", "m8735310a"),
            ("b", "jbf49n1hx"),
            ("abc", "y0biex7f9"),
            ("0", "1t916k51b"),
            ("1", "1tss4pk1r"),
            ("call_1", "1j55k0s7o"),
            ("call_2", "mvudeb148"),
            ("call_abc_123456789xyz", "1n7oay0ss"),
            ("call|with/odd+chars=", "1rcnh3pl0"),
            ("short", "7kdrt5py4"),
            ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "1x7t2ktl1"),
            ("é", "1ohi2dgmq"),
            ("é_1", "1tss4pk1r"),
            ("___", "1l4g6yybx"),
            ("x-y", "124yxr5vs"),
            ("ABCDEFGHIJK", "vj5n3r1k7"),
            ("12345678", "sm274jvvy"),
            ("ab cd", "1mxvy0114"),
            ("Ωmega_1", "ok3gti1qt"),
            // Nine letters and digits are kept as they are.
            ("abcDEF123", "abcDEF123"),
            ("abc_DEF123", "abcDEF123"),
        ];
        for (id, want) in cases {
            assert_eq!(normalize(id), want, "{id:?}");
        }
    }

    #[test]
    fn every_result_is_nine_letters_or_digits() {
        for id in ["", " ", "\u{1F600}", "call_0_0|fc_0", &"x".repeat(10_000)] {
            let out = normalize(id);
            assert_eq!(out.len(), MISTRAL_ID_LEN, "{id:?}");
            assert!(out.chars().all(|c| c.is_ascii_alphanumeric()), "{id:?} -> {out}");
        }
    }

    #[test]
    fn base36_digits() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(u64::from(u32::MAX)), "1z141z3");
    }
}
