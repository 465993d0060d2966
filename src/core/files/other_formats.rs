//! Files of other formats given where safetensors were expected: named by their first bytes or
//! their extension, with what to do instead, rather than "not a safetensors file".

use std::path::Path;

/// A model format embedlens does not read as safetensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OtherFormat {
    /// `torch.save`'s zip archive of pickles (`pytorch_model.bin`, `.pt`, `.pth`).
    PytorchZip,
    /// A bare pickle: `torch.save` before PyTorch 1.6, or any pickled object.
    Pickle,
    /// An ONNX graph (a protocol buffer).
    Onnx,
    /// A GGUF file given where only safetensors fit (such as a shard in an index).
    Gguf,
}

impl OtherFormat {
    /// Recognises a file by its first bytes, then by its extension.
    pub(super) fn of(path: &Path, bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"GGUF") {
            return Some(Self::Gguf);
        }
        if bytes.starts_with(b"PK\x03\x04") {
            return Some(Self::PytorchZip);
        }
        // Pickle protocols 2 to 5 open with PROTO (0x80) and their number.
        if bytes.len() >= 2 && bytes[0] == 0x80 && (2..=5).contains(&bytes[1]) {
            return Some(Self::Pickle);
        }
        let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase());
        match extension.as_deref() {
            Some("onnx") => Some(Self::Onnx),
            Some("bin" | "pt" | "pth" | "ckpt") => Some(Self::PytorchZip),
            Some("gguf") => Some(Self::Gguf),
            _ => None,
        }
    }

    /// What the file is and what to do with it.
    pub(super) fn message(self, path: &Path) -> String {
        let shown = path.display();
        match self {
            Self::PytorchZip | Self::Pickle => {
                let what = if self == Self::Pickle {
                    "a Python pickle (as older torch.save writes)"
                } else {
                    "a PyTorch checkpoint (torch.save's zip of pickles)"
                };
                format!(
                    "{shown}: {what}, not safetensors. embedlens does not load pickles, which \
                     can run code when loaded. Convert it once with PyTorch and the safetensors \
                     package: python -c \"import torch; from safetensors.torch import save_file; \
                     save_file({{k: v.contiguous() for k, v in torch.load('{shown}', \
                     weights_only=True).items()}}, 'model.safetensors')\" (or, for a Hugging Face \
                     model, save_pretrained(folder, safe_serialization=True))"
                )
            }
            Self::Onnx => format!(
                "{shown}: an ONNX graph, not safetensors; embedlens reads safetensors and GGUF. \
                 Open the model's safetensors files instead (most ONNX exports sit beside them)"
            ),
            Self::Gguf => format!(
                "{shown}: a GGUF file, not safetensors; give it on its own with --model {shown}"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_their_first_bytes_then_their_names() {
        let of = |name: &str, bytes: &[u8]| OtherFormat::of(Path::new(name), bytes);
        assert_eq!(
            of("x.safetensors", b"PK\x03\x04rest"),
            Some(OtherFormat::PytorchZip)
        );
        assert_eq!(of("x", b"\x80\x02}q\x00"), Some(OtherFormat::Pickle));
        assert_eq!(of("x.bin", b"GGUF\x03\x00"), Some(OtherFormat::Gguf));
        assert_eq!(of("model.onnx", b"\x08\x07\x12"), Some(OtherFormat::Onnx));
        assert_eq!(of("weights.PT", b"??"), Some(OtherFormat::PytorchZip));
        assert_eq!(of("model.safetensors", b"\x10\x00\x00\x00"), None);
    }

    #[test]
    fn pickles_say_how_to_convert_them() {
        let message = OtherFormat::PytorchZip.message(Path::new("pytorch_model.bin"));
        assert!(message.contains("a PyTorch checkpoint"), "{message}");
        assert!(
            message.contains("torch.load('pytorch_model.bin'"),
            "{message}"
        );
        assert!(message.contains("save_file"), "{message}");
        let onnx = OtherFormat::Onnx.message(Path::new("model.onnx"));
        assert!(onnx.contains("an ONNX graph"), "{onnx}");
    }
}
