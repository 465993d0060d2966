//! Long and unusual text through the real binary in a pseudo-terminal: a megabyte paste,
//! emoji, wide CJK, combining marks and right-to-left text, a ten-thousand-word paste, a typed
//! flood and a paste whose end never comes.

mod pty_session;

use embedlens::core::text::vocabulary::{VocabKind, Vocabulary};
use pty_session::{
    COLS, CTRL_C, CTRL_U, END, ENTER, LEFT, RIGHT, Session, columns, line_with, pane,
};

#[test]
fn typing_after_a_megabyte_paste_stays_bounded_and_says_what_was_left_out() {
    // 1 GiB of address space: looking up every token of the paste held over 1 GB here, and
    // every key typed after it looked them all up again.
    let mut session = Session::launch_limited(&["--vocab", "gpt2"], 1 << 20);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_U);
    session.wait_for_text("Tokens · 0 ");
    let long = "the fox bites the man ".repeat(1_000_000 / 22);
    session.paste_bounded(&long);
    let screen = session.wait_for_text("Tokens · first 4096 tokens read, the ");
    let unread = |screen: &str| -> usize {
        let line = line_with(screen, &["Tokens · first 4096 tokens read, the "]);
        let (_, after) = line.split_once("read, the ").expect("the count follows");
        after
            .split_whitespace()
            .next()
            .and_then(|count| count.parse().ok())
            .unwrap_or_else(|| panic!("no count of unread characters in {line:?}"))
    };
    let before = unread(&screen);
    // Each key typed at the end of the paste is one more character left out, and is seen.
    // (The text area measures its whole line on every key: a debug build takes a good part of
    // a second a key here, a release build a few milliseconds.)
    for _ in 0..5 {
        session.press(b"z");
    }
    session.wait_for_text(&format!("the {} characters after them", before + 5));
    session.wait_for_text("man zzzzz");
    session.press_bounded(CTRL_C.to_vec());
    session.assert_clean_exit();
}

/// The number of tokens the token strip's title gives.
fn token_count(screen: &str) -> usize {
    let title = line_with(screen, &["Tokens · "]);
    let (_, after) = title
        .split_once("Tokens · ")
        .expect("the title names the count");
    let count = after
        .split_whitespace()
        .next()
        .expect("a count follows the title");
    count
        .parse()
        .unwrap_or_else(|_| panic!("`{count}` is not a token count; the screen was:\n{screen}"))
}

/// Sentences that trouble terminals: wide emoji, wide CJK, a combining accent, right-to-left
/// text; each typed key by key (`true`) or pasted whole.
const UNICODE_SENTENCES: [(&str, bool); 4] = [
    ("the 🦊 bites the 🦊", true),
    ("東京は大きい 東京", false),
    ("cafe\u{301} and cafe\u{301}", false),
    ("שלום עולם שלום", true),
];

/// Enters each sentence, steps through every token, and checks the panes line up on every
/// frame.
fn step_through_unicode_sentences(session: &mut Session) {
    for (sentence, typed) in UNICODE_SENTENCES {
        session.press(CTRL_U);
        session.wait_for_aligned(&["Tokens · 0 "]);
        if typed {
            session.press(sentence.as_bytes());
        } else {
            session.paste(sentence);
        }
        session.wait_for_aligned(&[sentence]);
        session.press(ENTER);
        let screen = session.wait_for_aligned(&["EXPLORE", "▶0 "]);
        let count = token_count(&screen);
        assert!(count > 0, "{sentence:?} has tokens:\n{screen}");
        for step in 1..count {
            session.press(RIGHT);
            session.wait_for_aligned(&[&format!("▶{step} ")]);
        }
        // Positions on, and a scheme that adds them, change every lookup line.
        session.press(b"p");
        session.wait_for_aligned(&["token + learned position = input vector"]);
        session.press(b"p");
        session.wait_for_aligned(&["the row each id returned"]);
        session.press(b"i");
        session.wait_for_aligned(&["Sentence · type"]);
    }
}

#[test]
fn emoji_wide_cjk_combining_marks_and_right_to_left_text_keep_the_panes_aligned() {
    for args in [
        &[][..],
        &["--vocab", "words"][..],
        &["--vocab", "gpt2", "--dim", "8"][..],
    ] {
        let mut session = Session::launch(args);
        session.wait_for_aligned(&["fox bites the fox", "Weight matrix"]);
        step_through_unicode_sentences(&mut session);
        // A narrower terminal stacks the panes; they must line up there too.
        session.resize(30, 77);
        session.wait_for_aligned(&["Weight matrix", "Lookups"]);
        session.press(ENTER);
        session.wait_for_aligned(&["EXPLORE", "▶0 "]);
        session.press(b"q");
        session.assert_clean_exit();
    }
}

#[test]
fn a_long_line_of_wide_characters_scrolls_sideways_and_keeps_the_current_token_whole() {
    // Wide words with a one-column word between them, so the sideways scroll lands both on
    // and inside wide characters as the current token moves.
    let sentence = "東京は大きい a 🦊 ".repeat(12);
    let sentence = sentence.trim_end();
    let tokens = Vocabulary::builtin(VocabKind::Seed)
        .expect("the seed vocabulary is built in")
        .tokenize(sentence);
    let mut session = Session::launch(&[sentence]);
    session.wait_for_aligned(&["Weight matrix"]);
    session.press(ENTER);
    let screen = session.wait_for_aligned(&["EXPLORE", "▶0 "]);
    let inner_width = columns(&pane(&screen, "Sentence")[0]).len();
    assert_eq!(token_count(&screen), tokens.len());
    for token in &tokens {
        if token.position > 0 {
            session.press(RIGHT);
        }
        let screen = session.wait_for_aligned(&[&format!("▶{} ", token.position)]);
        let shown = pane(&screen, "Sentence").remove(0);
        let end = columns(&sentence[..token.span.end]).len();
        let whole = if end > usize::from(COLS) - 2 {
            shown.trim_end().ends_with(&token.text)
        } else {
            shown.contains(&token.text)
        };
        assert!(
            whole,
            "token {} {:?} (ending at column {end} of a {inner_width}-column pane) is not \
             shown whole at the pane's edge: {shown:?}\n{screen}",
            token.position, token.text
        );
    }
    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn a_ten_thousand_word_paste_stays_aligned_and_responsive() {
    use embedlens::core::text::sentence::MAX_SENTENCE_TOKENS;
    let words = [
        "the",
        "fox",
        "🦊",
        "bites",
        "東京",
        "שלום",
        "cafe\u{301}",
        "man",
        "dog",
        "quick",
    ];
    let text = words
        .iter()
        .cycle()
        .take(10_000)
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let mut tokens = Vocabulary::builtin(VocabKind::Seed)
        .expect("the seed vocabulary is built in")
        .tokenize(&text);
    // The explorer reads the first MAX_SENTENCE_TOKENS of them and says how much it left.
    tokens.truncate(MAX_SENTENCE_TOKENS);
    let count = tokens.len();
    let unread = text[tokens[count - 1].span.end..].chars().count();
    let mut session = Session::launch(&[]);
    session.wait_for_aligned(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_U);
    session.wait_for_aligned(&["Tokens · 0 "]);
    session.paste(&text);
    session.wait_for_aligned(&[&format!(
        "Tokens · first {count} tokens read, the {unread} characters after them left out"
    )]);
    session.press(ENTER);
    session.wait_for_aligned(&["EXPLORE", "▶0 "]);
    session.press(END);
    let screen = session.wait_for_aligned(&[&format!("▶{} ", count - 1)]);
    let shown = pane(&screen, "Sentence").remove(0);
    let last = &tokens[count - 1];
    assert!(
        shown.trim_end().ends_with(&last.text),
        "the sentence scrolls to its last token {:?}: {shown:?}\n{screen}",
        last.text
    );
    session.press(LEFT);
    session.wait_for_aligned(&[&format!("▶{} ", count - 2)]);
    session.press(b"p");
    session.wait_for_aligned(&["token + learned position = input vector"]);
    session.press(b"q");
    session.assert_clean_exit();
}

/// `count` characters of typed text (not a bracketed paste), as a terminal without bracketed
/// paste, a slow paste or a stuck key sends them.
fn typed_flood(count: usize) -> Vec<u8> {
    "the dog bites the man "
        .bytes()
        .cycle()
        .take(count)
        .collect()
}

#[test]
fn a_typed_flood_is_taken_in_whole_and_ctrl_c_in_its_middle_quits_at_once() {
    // Typing mode, then compare mode's second sentence, with GPT-2's tokenizer: each typed
    // key used to re-tokenise and re-derive everything (minutes of work for 10,000 keys).
    for compare in [false, true] {
        let mut session = Session::launch(&["--vocab", "gpt2"]);
        session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
        if compare {
            session.press(ENTER);
            session.wait_for_text("EXPLORE");
            session.press(b"c");
            session.wait_for_text("Compare");
            session.press(b"I");
        }
        session.press(CTRL_U);
        let mut flood = typed_flood(10_000);
        flood.extend_from_slice(b"zebra");
        session.press_bounded(flood);
        // The whole flood is read and tokenised well within the test's timeout.
        session.wait_for_text("zebra");
        session.press_bounded(typed_flood(5_000));
        session.press_bounded(CTRL_C.to_vec());
        session.press_bounded(typed_flood(5_000));
        session.assert_clean_exit();
    }
}

#[test]
fn a_paste_whose_end_never_comes_ends_and_the_keys_after_it_act() {
    // A paste's start with no end (a terminal or multiplexer that lost it): the text that came
    // is the paste, and the keys typed after a quiet moment are keys again, Ctrl+C included.
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_U);
    session.press(b"\x1b[200~dog bites man");
    session.wait_for_text("dog bites man");
    session.press(b" zebra");
    session.wait_for_text("dog bites man zebra");
    session.press(CTRL_C);
    session.assert_clean_exit();
}
