//! embedlens: a terminal explorer of what an LLM's embedding layer does.
//!
//! The maths lives in [`core`] and knows nothing of the terminal; [`app`] holds the
//! explorer's state and its single `update`; [`ui`] draws it, with each pane beside the
//! matrix in [`panes`]; [`print`](mod@print) writes the same
//! facts for scripts.
//!
//! These documents are for the program's developers (it is an application, not a library to
//! build on): a public item's text may name the private parts it is made of.
#![allow(rustdoc::private_intra_doc_links)]
pub mod action;
pub mod app;
pub mod cli;
pub mod core;
pub mod export;
pub mod help;
pub mod hit_map;
#[cfg(test)]
mod import_circles;
pub mod lesson;
pub mod panes;
pub mod print;
#[cfg(unix)]
pub mod terminal_rescue;
pub mod theme;
pub mod ui;
pub mod view_state;
