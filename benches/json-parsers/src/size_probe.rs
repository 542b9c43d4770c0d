//! The smallest program that drives `Kept` with serde_json, and with sonic-rs and/or simd-json
//! when their features are on: built with and without each, its size is what the parser adds
//! (README.md). Reads one object per line on stdin, prints each one's key.

use kubectl_informer::informer::object::Kept;
use serde::de::DeserializeSeed;
use std::io::BufRead;

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let mut de = serde_json::Deserializer::from_str(&line);
        println!(
            "serde_json: {:?}",
            Kept(None).deserialize(&mut de).map(|o| o.key())
        );
        #[cfg(feature = "sonic-rs")]
        {
            let mut de = sonic_rs::Deserializer::from_str(&line);
            println!(
                "sonic-rs: {:?}",
                Kept(None).deserialize(&mut de).map(|o| o.key())
            );
        }
        #[cfg(feature = "simd-json")]
        {
            let mut copy = line.clone().into_bytes();
            let read = simd_json::Deserializer::from_slice(&mut copy)
                .and_then(|mut de| Kept(None).deserialize(&mut de));
            println!("simd-json: {:?}", read.map(|o| o.key()));
        }
    }
}
