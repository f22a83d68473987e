package impose

import "golang.org/x/image/font/gofont/goregular"

func goregularTTF() []byte { return goregular.TTF }
