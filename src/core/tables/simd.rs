//! One home for choosing, at run time, a function compiled for wider vector instructions.

/// `$fast` — a call of a function compiled with `#[target_feature(enable = …)]` for the
/// features named — when the processor has every one of them, else `$portable`. The two must
/// compute the same thing (the callers keep them to the same bits); on other architectures
/// `$fast` is never compiled.
macro_rules! with_features {
    ([$($feature:tt),+], $fast:expr, $portable:expr $(,)?) => {{
        #[cfg(target_arch = "x86_64")]
        let result = if true $(&& std::arch::is_x86_feature_detected!($feature))+ {
            #[expect(
                unsafe_code,
                reason = "calling a function compiled for these features needs the CPU to have them"
            )]
            // SAFETY: every feature the function is compiled for was detected just above.
            let fast = unsafe { $fast };
            fast
        } else {
            $portable
        };
        #[cfg(not(target_arch = "x86_64"))]
        let result = $portable;
        result
    }};
}

pub(crate) use with_features;
