"""Expected ids for llama.cpp's test strings in the nomic-bert-moe vocabulary.

llama.cpp's suite ships `ggml-vocab-nomic-bert-moe.gguf` (`tokenizer.ggml.model = t5`: a
SentencePiece unigram model with its precompiled character map) without `.inp`/`.out` files.
This script makes them: the strings are llama.cpp's common test strings (`llama-spm.inp`, which
13 of the suite's vocabularies share), and the ids are what the `sentencepiece` library, the
implementation llama.cpp's UGM tokenizer ports, reads them into with a SentencePiece model made
back from the GGUF metadata alone (pieces, scores, types, the character map and the whitespace
flags), without beginning or end tokens (as the suite's `.out` files, `add_special_tokens=False`).

Run with the `gguf`, `sentencepiece` and `protobuf` packages in a scratch venv:
    python scripts/nomic_bert_moe_expected.py tests/fixtures/llama-vocab
"""

import pathlib
import shutil
import sys

import gguf
from sentencepiece import SentencePieceProcessor
from sentencepiece import sentencepiece_model_pb2 as model_pb2

SEPARATOR = "\n__ggml_vocab_test__\n"

# llama.cpp's token types, as SentencePiece numbers its piece types.
PIECE_TYPES = {
    1: model_pb2.ModelProto.SentencePiece.NORMAL,
    2: model_pb2.ModelProto.SentencePiece.UNKNOWN,
    3: model_pb2.ModelProto.SentencePiece.CONTROL,
    4: model_pb2.ModelProto.SentencePiece.USER_DEFINED,
    5: model_pb2.ModelProto.SentencePiece.UNUSED,
    6: model_pb2.ModelProto.SentencePiece.BYTE,
}


def field(reader, key):
    value = reader.fields[key]
    return value.contents()


def model_from_metadata(path):
    reader = gguf.GGUFReader(path)
    assert field(reader, "tokenizer.ggml.model") == "t5"
    tokens = field(reader, "tokenizer.ggml.tokens")
    scores = field(reader, "tokenizer.ggml.scores")
    types = field(reader, "tokenizer.ggml.token_type")
    charsmap = bytes(field(reader, "tokenizer.ggml.precompiled_charsmap"))
    model = model_pb2.ModelProto()
    for token, score, kind in zip(tokens, scores, types):
        piece = model.pieces.add()
        piece.piece = token
        piece.score = score
        piece.type = PIECE_TYPES[kind]
    model.trainer_spec.model_type = model_pb2.TrainerSpec.UNIGRAM
    model.trainer_spec.unk_id = field(reader, "tokenizer.ggml.unknown_token_id")
    model.trainer_spec.bos_id = field(reader, "tokenizer.ggml.bos_token_id")
    model.trainer_spec.eos_id = field(reader, "tokenizer.ggml.eos_token_id")
    model.trainer_spec.pad_id = field(reader, "tokenizer.ggml.padding_token_id")
    model.normalizer_spec.name = "precompiled"
    model.normalizer_spec.precompiled_charsmap = charsmap
    model.normalizer_spec.add_dummy_prefix = field(reader, "tokenizer.ggml.add_space_prefix")
    model.normalizer_spec.remove_extra_whitespaces = field(
        reader, "tokenizer.ggml.remove_extra_whitespaces"
    )
    model.normalizer_spec.escape_whitespaces = True
    processor = SentencePieceProcessor()
    processor.LoadFromSerializedProto(model.SerializeToString())
    return processor


def main():
    fixtures = pathlib.Path(sys.argv[1])
    processor = model_from_metadata(str(fixtures / "gguf" / "nomic-bert-moe.gguf"))
    shutil.copyfile(fixtures / "llama-spm.inp", fixtures / "nomic-bert-moe.inp")
    texts = (fixtures / "llama-spm.inp").read_text(encoding="utf-8").split(SEPARATOR)
    if texts[-1] == "":
        texts.pop()
    with open(fixtures / "nomic-bert-moe.out", "w", encoding="utf-8") as out:
        for text in texts:
            ids = processor.EncodeAsIds(text)
            out.write("".join(f" {i}" for i in ids) + "\n")


if __name__ == "__main__":
    main()
