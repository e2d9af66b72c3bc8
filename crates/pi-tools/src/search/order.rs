//! Path order: the order of a depth-first walk with each folder's entries
//! sorted by name (fd's order for the results it sorts, `rg --sort path`'s).

use std::cmp::Ordering;
use std::path::Path;

use super::path_bytes;

/// Path order component by component: the separator sorts below every other
/// byte (the order of a depth-first walk with each folder's entries sorted by name). The paths are
/// compared as bytes up to their first difference, where only the two
/// differing bytes need mapping.
pub(crate) fn path_cmp(a: &Path, b: &Path) -> Ordering {
    let (a, b) = (path_bytes(a), path_bytes(b));
    let common = common_prefix(a, b);
    let map = |c: u8| if c == b'/' { 0 } else { c };
    match (a.get(common), b.get(common)) {
        (Some(&x), Some(&y)) => map(x).cmp(&map(y)),
        (x, y) => x.is_some().cmp(&y.is_some()),
    }
}

/// The length of the common prefix of `a` and `b`, eight bytes at a time
/// (paths from one walk share a long prefix: the search folder's path).
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let diff =
            u64::from_le_bytes(x.try_into().unwrap_or_default()) ^ u64::from_le_bytes(y.try_into().unwrap_or_default());
        if diff != 0 {
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + a[i..].iter().zip(&b[i..]).take_while(|(x, y)| x == y).count()
}

/// True when `a` is `b` or one of its ancestors (compared as bytes: both
/// come from the same walk, so they are spelled alike).
pub(crate) fn is_ancestor_or_self(a: &Path, b: &Path) -> bool {
    let (a, b) = (path_bytes(a), path_bytes(b));
    b.starts_with(a) && (b.len() == a.len() || b[a.len()] == b'/' || a.ends_with(b"/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::sort_key;

    #[test]
    fn path_order_is_the_sort_key_order() {
        let paths = ["/a/b", "/a.b", "/a/b/c", "/a-b", "/a", "/ab", "/a/b.c"];
        for x in paths {
            for y in paths {
                let (px, py) = (Path::new(x), Path::new(y));
                assert_eq!(path_cmp(px, py), sort_key(px).cmp(&sort_key(py)), "{x} {y}");
            }
        }
    }

    proptest::proptest! {
        // Long shared prefixes and differences at any byte (the comparison goes
        // eight bytes at a time).
        #[test]
        fn path_order_is_the_sort_key_order_for_any_paths(x in "/[ab/.-]{0,40}", y in "/[ab/.-]{0,40}") {
            let (px, py) = (Path::new(&x), Path::new(&y));
            proptest::prop_assert_eq!(path_cmp(px, py), sort_key(px).cmp(&sort_key(py)));
            let (lx, ly) = (format!("/some/long/search/folder{x}"), format!("/some/long/search/folder{y}"));
            let (lx, ly) = (Path::new(&lx), Path::new(&ly));
            proptest::prop_assert_eq!(path_cmp(lx, ly), sort_key(lx).cmp(&sort_key(ly)));
        }
    }

    #[test]
    fn ancestors_are_whole_components() {
        assert!(is_ancestor_or_self(Path::new("/a/b"), Path::new("/a/b/c")));
        assert!(is_ancestor_or_self(Path::new("/a/b"), Path::new("/a/b")));
        assert!(!is_ancestor_or_self(Path::new("/a/b"), Path::new("/a/bc")));
        assert!(!is_ancestor_or_self(Path::new("/a/b/c"), Path::new("/a/b")));
    }
}
