//! PKCE (RFC 7636): a random verifier and its S256 challenge.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};

/// A verifier and its challenge.
#[derive(Debug, Clone)]
pub struct Pkce {
    /// Sent with the code exchange.
    pub verifier: String,
    /// Sent with the authorization request (`code_challenge_method=S256`).
    pub challenge: String,
}

/// `n` random bytes, base64url without padding.
pub fn random_token(n: usize) -> String {
    URL_SAFE_NO_PAD.encode(random_bytes(n))
}

/// `n` random bytes.
pub fn random_bytes(n: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; n];
    // The OS generator fails only on a broken system; the time then keeps tokens distinct.
    if getrandom::fill(&mut bytes).is_err() {
        let t = super::now_ms().to_le_bytes();
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = t[i % t.len()] ^ (i as u8);
        }
    }
    bytes
}

impl Pkce {
    /// A fresh pair.
    pub fn new() -> Self {
        Self::from_verifier(random_token(32))
    }

    /// The pair for a given verifier.
    pub fn from_verifier(verifier: String) -> Self {
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Self { verifier, challenge }
    }
}

impl Default for Pkce {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_example() {
        let p = Pkce::from_verifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk".into());
        assert_eq!(p.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        assert_eq!(Pkce::new().verifier.len(), 43);
        assert_ne!(Pkce::new().verifier, Pkce::new().verifier);
    }
}
