"""Reading and writing an export: model.safetensors (numpy reads and writes it; the `safetensors`
package is not needed) and config.json."""
import json
import os
import struct

import numpy as np
import torch


def read_safetensors(path):
    """{name: float32 tensor} of a safetensors file of F32 tensors."""
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        if spec["dtype"] != "F32":
            raise ValueError("%s: tensor %r has dtype %s; pe-bench exports F32" % (path, name, spec["dtype"]))
        s, e = spec["data_offsets"]
        data = np.frombuffer(raw[8 + n + s:8 + n + e], "<f4").reshape(spec["shape"]).copy()
        tensors[name] = torch.from_numpy(data)
    return tensors


def write_safetensors(path, tensors, metadata=None):
    """Writes {name: tensor} as F32, little-endian, row-major; the header padded to 8 bytes."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().to(torch.float32).contiguous().cpu().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = dict(metadata)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def load_export(directory):
    """(config, {torch name: float32 tensor}) of a directory `pe-bench export` wrote."""
    config = json.load(open(os.path.join(directory, "config.json")))
    return config, read_safetensors(os.path.join(directory, "model.safetensors"))


def save_export(model, directory, training=None):
    """Writes a twin's (trained) weights under the config they were loaded with, so that
    `pe-bench import --from directory` turns them into a checkpoint. The checkpoint keeps the original
    training record; `training` (e.g. {"steps": 30, "lr": 1e-3}) is added to it as "pytorch", so the
    imported checkpoint says what happened to it after pe-bench."""
    os.makedirs(directory, exist_ok=True)
    config = json.loads(json.dumps(model.config))
    if training:
        config["pe_bench_checkpoint"]["training"]["pytorch"] = training
    if "rope_layout" in config:  # the layout the weights were read (and trained) in
        config["rope_layout"] = model.rope_layout
    write_safetensors(os.path.join(directory, "model.safetensors"), model.state_tensors(),
                      {"format": "pt", "producer": "pebench_torch"})
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
