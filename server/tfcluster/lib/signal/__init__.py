"""tf.signal's library functions, built from ops: windows, framing and overlap-add, short-time
Fourier transforms, mel filterbanks, MFCCs and the discrete cosine transform."""
