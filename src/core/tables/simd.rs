//! One home for choosing, at run time, a function compiled for wider vector instructions.

/// The first `$fast` — a call of a function compiled with `#[target_feature(enable = …)]` for
/// the features named before it — whose features the processor has every one of, else
/// `$portable`:
///
/// ```ignore
/// with_features!(
///     ["avx512f"] => sum_avx512(numbers),
///     ["avx2"] => sum_avx2(numbers),
///     else sum_portable(numbers),
/// )
/// ```
///
/// All of them must compute the same thing (the callers keep them to the same bits); on other
/// architectures no `$fast` is compiled. `with_features!([features], fast, portable)` is the
/// one-path form.
macro_rules! with_features {
    ($([$($feature:tt),+] => $fast:expr,)+ else $portable:expr $(,)?) => {{
        #[cfg(target_arch = "x86_64")]
        let result = 'chosen: {
            $(
                if true $(&& std::arch::is_x86_feature_detected!($feature))+ {
                    #[expect(
                        unsafe_code,
                        reason = "calling a function compiled for these features needs the CPU to have them"
                    )]
                    // SAFETY: every feature the function is compiled for was detected just above.
                    let fast = unsafe { $fast };
                    break 'chosen fast;
                }
            )+
            $portable
        };
        #[cfg(not(target_arch = "x86_64"))]
        let result = $portable;
        result
    }};
    ([$($feature:tt),+], $fast:expr, $portable:expr $(,)?) => {
        with_features!([$($feature),+] => $fast, else $portable)
    };
}

pub(crate) use with_features;
