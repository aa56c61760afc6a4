"""An independent client of `pce-prover serve`, in another language.

Compiles the daemon's .proto with grpcio-tools, then does what Curio's Go
client does (lib/cuzk/client.go, lib/ffi/cuzk_funcs.go): wraps the raw
commit-phase-1 JSON in {"SectorNum", "Phase1Out" (base64), "SectorSize"},
calls Prove with request id porep-MINER-SECTOR, and reads GetStatus and
GetMetrics. Prints the proof as hex on the line "PROOF <hex>".

usage: curio_client.py PROTO_DIR ADDRESS C1_JSON MINER_ID
(ADDRESS: host:port or unix:///path; C1_JSON: lotus-bench's c1.json)
"""

import base64
import importlib
import json
import os
import sys
import tempfile

from grpc_tools import protoc
import grpc


def compile_proto(proto_dir, out_dir):
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    rc = protoc.main([
        "protoc",
        f"-I{proto_dir}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        "cuzk/v1/proving.proto",
    ])
    if rc != 0:
        sys.exit(f"protoc failed with {rc}")
    sys.path.insert(0, out_dir)
    return (importlib.import_module("cuzk.v1.proving_pb2"),
            importlib.import_module("cuzk.v1.proving_pb2_grpc"))


def main():
    proto_dir, address, c1_path, miner = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    with tempfile.TemporaryDirectory() as out_dir:
        pb, rpc = compile_proto(proto_dir, out_dir)
        with open(c1_path) as f:
            lotus_bench = json.load(f)
        # What Curio holds: the raw C1 JSON (filecoin-proofs-api's), and the
        # sector's number and size; it wraps them itself.
        raw_c1 = base64.b64decode(lotus_bench["Phase1Out"])
        sector = lotus_bench["SectorNum"]
        size = lotus_bench["SectorSize"]
        wrapped = json.dumps({
            "SectorNum": sector,
            "Phase1Out": base64.b64encode(raw_c1).decode(),
            "SectorSize": size,
        }).encode()
        registered_proof = {2048: 5, 8 << 20: 6, 512 << 20: 7, 32 << 30: 8, 64 << 30: 9}[size]

        options = [("grpc.max_send_message_length", 256 << 20),
                   ("grpc.max_receive_message_length", 256 << 20)]
        if address.startswith("unix:"):
            # grpc-core names a unix socket's path as the HTTP/2 authority,
            # which the daemon's HTTP/2 stack (hyper) refuses as malformed;
            # Go's gRPC, which Curio uses, sends "localhost" by itself.
            target = address
            options.append(("grpc.default_authority", "localhost"))
        else:
            target = f"dns:///{address}"
        with grpc.insecure_channel(target, options=options) as channel:
            stub = rpc.ProvingEngineStub(channel)
            request = pb.SubmitProofRequest(
                request_id=f"porep-{miner}-{sector}",
                proof_kind=pb.POREP_SEAL_COMMIT,
                sector_size=size,
                registered_proof=registered_proof,
                priority=pb.NORMAL,
                vanilla_proof=wrapped,
                sector_number=sector,
                miner_id=miner,
            )
            result = stub.Prove(pb.ProveRequest(submit=request), timeout=600).result
            if result.status != pb.AwaitProofResponse.COMPLETED:
                sys.exit(f"Prove: status {result.status}: {result.error_message}")
            print(f"job {result.job_id}: {len(result.proof)} bytes, total {result.total_ms} ms")

            status = stub.GetStatus(pb.GetStatusRequest(), timeout=5)
            print(f"status: {status.total_proofs_completed} completed, "
                  f"{len(status.gpus)} device(s), circuits "
                  f"{[s.circuit_id for s in status.loaded_srs]}")
            metrics = stub.GetMetrics(pb.GetMetricsRequest(), timeout=5).prometheus_text
            completed = [line for line in metrics.splitlines()
                         if line.startswith('pce_prover_jobs_total{kind="porep",outcome="completed"}')]
            print(f"metrics: {completed}")
            print(f"PROOF {result.proof.hex()}")


if __name__ == "__main__":
    main()
