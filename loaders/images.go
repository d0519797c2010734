package loaders

import (
	"bufio"
	"fmt"
	"image"
	_ "image/jpeg" // decoders for the published image formats
	_ "image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/image/draw"
)

// ImageConfig configures the image datasets (waterbirds, celeba).
type ImageConfig struct {
	Dir      string // dataset folder (the published layout)
	Size     int    // images are resized (shorter side) and centre-cropped to Size x Size; default 64
	Features string // optional .npy of per-sample embeddings, one row per metadata row, instead of images
}

// loadImage decodes a JPEG or PNG, resizes its shorter side to size and
// centre-crops it to size x size; it returns 3 x size x size in [0, 1].
func loadImage(path string, size int, out []float32) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	defer f.Close()
	src, _, err := image.Decode(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("%s: cannot decode the image (%v); want JPEG or PNG", path, err)
	}
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return fmt.Errorf("%s: empty image", path)
	}
	sw, sh := size, size
	if w < h {
		sh = (h*size + w/2) / w
	} else {
		sw = (w*size + h/2) / h
	}
	dst := image.NewRGBA(image.Rect(0, 0, sw, sh))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	ox, oy := (sw-size)/2, (sh-size)/2
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			p := dst.PixOffset(ox+x, oy+y)
			for c := 0; c < 3; c++ {
				out[c*size*size+y*size+x] = float32(dst.Pix[p+c]) / 255
			}
		}
	}
	return nil
}

// imageFeatures loads one image per row of t (file names in column col,
// relative to dir), or the rows of a .npy file.
func imageFeatures(t *table, col int, dir string, c ImageConfig) ([]float32, int, Shape, error) {
	n := len(t.rows)
	if c.Features != "" {
		shape, data, err := ReadNPYFile(c.Features)
		if err != nil {
			return nil, 0, Shape{}, err
		}
		if shape[0] != n {
			return nil, 0, Shape{}, fmt.Errorf("%s has %d rows, %s has %d; one embedding per metadata row, in order", c.Features, shape[0], t.path, n)
		}
		d := 1
		if len(shape) == 2 {
			d = shape[1]
		}
		return data, d, Shape{C: d, H: 1, W: 1}, nil
	}
	size := c.Size
	if size <= 0 {
		size = 64
	}
	d := 3 * size * size
	x := make([]float32, n*d)
	for r := 0; r < n; r++ {
		if err := loadImage(filepath.Join(dir, t.rows[r][col]), size, x[r*d:(r+1)*d]); err != nil {
			return nil, 0, Shape{}, err
		}
	}
	return x, d, Shape{C: 3, H: size, W: size}, nil
}

// withGroups sets group = 2 y + attr with the given names on every split.
func withGroups(s *Splits, names []string, shape Shape) {
	for _, d := range []*Dataset{s.Train, s.Val, s.Test} {
		d.GroupNames, d.Shape = names, shape
		for i := range d.Group {
			d.Group[i] = 2*d.Y[i] + d.Attr[i]
		}
	}
}

// Waterbirds loads the published Waterbirds folder: metadata.csv with
// img_id, img_filename, y (0 landbird, 1 waterbird), split (0/1/2) and
// place (0 land, 1 water), the images beside it. env = place; group =
// 2 y + place.
func Waterbirds(c ImageConfig) (*Splits, error) {
	t, err := readCSV(filepath.Join(c.Dir, "metadata.csv"))
	if err != nil {
		return nil, fmt.Errorf("%w (waterbirds needs the published folder, metadata.csv beside the images, in %s; or pass --dir)", err, c.Dir)
	}
	fc, err := t.need("img_filename", "image file")
	if err != nil {
		return nil, err
	}
	x, d, shape, err := imageFeatures(t, fc, c.Dir, c)
	if err != nil {
		return nil, err
	}
	// The file name column is not a feature: it is only used here.
	t.rename(fc, "")
	fcfg := FeaturesConfig{Label: "y", Split: "split", Attr: "place", Env: "place", ID: "img_id"}
	s, err := fromTable(t, fcfg, x, d, "waterbirds", c.Dir)
	if err != nil {
		return nil, err
	}
	for _, ds := range []*Dataset{s.Train, s.Val, s.Test} {
		if ds.Classes != 2 || len(ds.EnvNames) > 2 {
			return nil, fmt.Errorf("%s: y and place must be 0 or 1", t.path)
		}
		ds.EnvNames = waterbirdsEnvs
	}
	withGroups(s, waterbirdsGroups, shape)
	return s, s.Validate()
}

// CelebA loads the published CelebA layout: list_attr_celeba.txt (count,
// attribute names, then one line per image of -1/1 values),
// list_eval_partition.txt (image, 0/1/2) and img_align_celeba/. Target
// Blond_Hair, spurious attribute Male (env = Male); group = 2 y + male.
func CelebA(c ImageConfig) (*Splits, error) {
	attrPath := filepath.Join(c.Dir, "list_attr_celeba.txt")
	lines, err := readLines(attrPath)
	if err != nil {
		return nil, fmt.Errorf("%w (celeba needs the published layout, list_attr_celeba.txt, list_eval_partition.txt and img_align_celeba/, in %s; or pass --dir)", err, c.Dir)
	}
	if len(lines) < 3 {
		return nil, fmt.Errorf("%s: want a count line, a line of attribute names and one line per image", attrPath)
	}
	names := strings.Fields(lines[1])
	bi, mi := indexOf(names, "Blond_Hair"), indexOf(names, "Male")
	if bi < 0 || mi < 0 {
		return nil, fmt.Errorf("%s: no Blond_Hair or Male attribute in %v", attrPath, names)
	}
	partPath := filepath.Join(c.Dir, "list_eval_partition.txt")
	plines, err := readLines(partPath)
	if err != nil {
		return nil, err
	}
	part := map[string]string{}
	for i, l := range plines {
		f := strings.Fields(l)
		if len(f) != 2 {
			return nil, fmt.Errorf("%s: line %d: want an image name and 0, 1 or 2", partPath, i+1)
		}
		part[f[0]] = f[1]
	}
	t := &table{path: attrPath, header: []string{"image", "label", "split", "attr", "id"}}
	for i, l := range lines[2:] {
		f := strings.Fields(l)
		if len(f) != len(names)+1 {
			return nil, fmt.Errorf("%s: line %d has %d values, want %d", attrPath, i+3, len(f)-1, len(names))
		}
		sp, ok := part[f[0]]
		if !ok {
			return nil, fmt.Errorf("%s has no partition for %s", partPath, f[0])
		}
		pm := func(v string) (string, error) {
			switch v {
			case "1":
				return "1", nil
			case "-1", "0":
				return "0", nil
			}
			return "", fmt.Errorf("%s: line %d: attribute value %q, want -1 or 1", attrPath, i+3, v)
		}
		y, err := pm(f[bi+1])
		if err != nil {
			return nil, err
		}
		m, err := pm(f[mi+1])
		if err != nil {
			return nil, err
		}
		id := strings.TrimLeft(strings.TrimSuffix(f[0], filepath.Ext(f[0])), "0")
		if _, err := strconv.Atoi(id); err != nil || id == "" {
			id = strconv.Itoa(i + 1)
		}
		t.rows = append(t.rows, []string{f[0], y, sp, m, id})
	}
	x, d, shape, err := imageFeatures(t, 0, filepath.Join(c.Dir, "img_align_celeba"), c)
	if err != nil {
		return nil, err
	}
	t.rename(0, "")
	s, err := fromTable(t, FeaturesConfig{Label: "label", Split: "split", Attr: "attr", Env: "attr", ID: "id"}, x, d, "celeba", c.Dir)
	if err != nil {
		return nil, err
	}
	for _, ds := range []*Dataset{s.Train, s.Val, s.Test} {
		ds.EnvNames = celebaEnvs
	}
	withGroups(s, celebaGroups, shape)
	return s, s.Validate()
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// imageSource is a folder of images with their metadata: waterbirds
// (Waterbirds) or celeba (CelebA).
type imageSource struct{ name string }

func (s imageSource) Name() string { return s.name }

func (imageSource) Options() []string { return []string{"ImageSize"} }

func (imageSource) OptionHelp(option string) string {
	switch option {
	case "Dir":
		return "the dataset folder (default <data-dir>/<dataset>)"
	case "ImageSize":
		return "resize and centre-crop images to this size"
	case "Features":
		return featuresHelp
	}
	return ""
}

// featuresHelp is what Spec.Features means for the datasets that read it.
const featuresHelp = ".npy of per-sample features, one row per metadata row"

func (s imageSource) Load(d Spec, in LoadInput) (*Splits, error) {
	c := ImageConfig{Dir: d.Dir, Size: d.ImageSize, Features: d.Features}
	if c.Dir == "" {
		c.Dir = filepath.Join(in.Dir, d.Name)
	}
	if s.name == "celeba" {
		return CelebA(c)
	}
	return Waterbirds(c)
}
