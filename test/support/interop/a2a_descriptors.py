"""Writes to stdout the A2A 1.0 proto schema as the Python a2a-sdk 1.x ships it (its generated
a2a_pb2), with google.rpc.ErrorInfo's file and every file they import, as one binary
google.protobuf.FileDescriptorSet, dependencies first.

Usage: python a2a_descriptors.py > set.binpb
"""
import sys

from a2a.types import a2a_pb2
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2

files = descriptor_pb2.FileDescriptorSet()
seen = set()


def add(file):
    if file.name in seen:
        return
    seen.add(file.name)
    for dependency in file.dependencies:
        add(dependency)
    file.CopyToProto(files.file.add())


add(a2a_pb2.DESCRIPTOR)
add(error_details_pb2.DESCRIPTOR)
sys.stdout.buffer.write(files.SerializeToString())
