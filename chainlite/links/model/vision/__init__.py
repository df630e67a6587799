"""ImageNet models (Chainer's ``chainer.links.model.vision``): VGG, ResNet and GoogLeNet."""
