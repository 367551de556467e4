"""The pictures and charts the chapters draw, apart from the models."""
