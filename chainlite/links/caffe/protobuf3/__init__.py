"""Caffe's message types (:mod:`chainlite.links.caffe.protobuf3.caffe_pb2`), at Chainer's path."""
