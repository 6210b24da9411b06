import BLEWire
