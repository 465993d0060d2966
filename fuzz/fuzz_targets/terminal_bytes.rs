//! Any bytes as the terminal writes them to embedlens: keys, mouse reports, pastes and noise,
//! fed to the explorer's decoder in the pieces the first bytes choose, with a quiet spell
//! (`Decoder::flush`) now and then. Decoding must never panic, every paste it hands on stays
//! within one piece, and after a last quiet spell nothing is held back.
#![no_main]

use embedlens::app::input::decode::{Decoder, PASTE_PIECE};
use libfuzzer_sys::fuzz_target;
use ratatui::crossterm::event::Event;

fuzz_target!(|data: &[u8]| {
    let Some((&pieces, mut rest)) = data.split_first() else {
        return;
    };
    let mut decoder = Decoder::default();
    let mut step = 0;
    while !rest.is_empty() {
        let size = 1 + usize::from(pieces.rotate_left(step)) % 17;
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        decoder.feed(piece, !tail.is_empty() && step % 2 == 0);
        if pieces & (1 << (step % 8)) != 0 {
            decoder.flush();
        }
        while let Some(event) = decoder.next_event() {
            if let Event::Paste(text) = event {
                assert!(
                    text.len() <= PASTE_PIECE * 3,
                    "a paste piece of {}",
                    text.len()
                );
            }
        }
        rest = tail;
        step += 1;
    }
    decoder.flush();
    while decoder.next_event().is_some() {}
    assert!(!decoder.is_unfinished());
});
