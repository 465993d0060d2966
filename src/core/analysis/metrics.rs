//! Distances and similarities between vectors.

use ndarray::ArrayView1;

use crate::core::tables::table::Table;

/// Rows [`typical_magnitude`] reads at the most, spread evenly over the table.
const SAMPLE_ROWS: usize = 64;

/// The root mean square of a sample of the table's rows: how large its numbers typically are.
///
/// Reads at most 64 rows, so it costs the same for any table; `None` while the table is
/// still being made, or when the sample is all zeros or not finite.
#[must_use]
pub fn typical_magnitude(table: &Table) -> Option<f32> {
    let rows = table.rows();
    let step = rows.div_ceil(SAMPLE_ROWS).max(1);
    let (sum, count) = (0..rows)
        .step_by(step)
        .filter_map(|row| table.row(row))
        .flat_map(|row| row.to_vec())
        .filter(|value| value.is_finite())
        .fold((0.0f64, 0usize), |(sum, count), value| {
            (sum + f64::from(value).powi(2), count + 1)
        });
    #[expect(
        clippy::cast_precision_loss,
        reason = "a sample of a few thousand values"
    )]
    let mean = sum / count.max(1) as f64;
    #[expect(clippy::cast_possible_truncation, reason = "a display scale")]
    let rms = mean.sqrt() as f32;
    (rms > 0.0 && rms.is_finite()).then_some(rms)
}

/// The Euclidean distance between two vectors of equal length, summed in f64.
#[must_use]
pub fn euclidean_distance(a: ArrayView1<f32>, b: ArrayView1<f32>) -> f64 {
    a.iter()
        .zip(b.iter())
        .map(|(&x, &y)| {
            let difference = f64::from(x) - f64::from(y);
            difference * difference
        })
        .sum::<f64>()
        .sqrt()
}

/// The cosine of the angle between two vectors; `None` when either has zero length.
#[must_use]
pub fn cosine_similarity(a: ArrayView1<f32>, b: ArrayView1<f32>) -> Option<f64> {
    let dot: f64 = a
        .iter()
        .zip(b.iter())
        .map(|(&x, &y)| f64::from(x) * f64::from(y))
        .sum();
    let norm = |v: ArrayView1<f32>| v.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    let denominator = norm(a) * norm(b);
    (denominator > 0.0).then(|| dot / denominator)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr1;

    #[test]
    fn distance_of_a_vector_to_itself_is_zero() {
        let v = arr1(&[1.2753f32, -0.2010, -0.1606]);
        assert!(euclidean_distance(v.view(), v.view()).abs() < f64::EPSILON);
    }

    #[test]
    fn distance_is_the_length_of_the_difference() {
        let a = arr1(&[0.0f32, 3.0]);
        let b = arr1(&[4.0f32, 0.0]);
        assert!((euclidean_distance(a.view(), b.view()) - 5.0).abs() < 1e-12);
    }

    #[test]
    fn typical_magnitude_is_the_rms_of_a_sample() {
        let table = Table::from(ndarray::Array2::from_elem((1000, 4), -0.05f32));
        assert!((typical_magnitude(&table).unwrap() - 0.05).abs() < 1e-6);
        let zeros = Table::from(ndarray::Array2::<f32>::zeros((3, 2)));
        assert_eq!(typical_magnitude(&zeros), None);
    }

    #[test]
    fn cosine_of_parallel_and_orthogonal_vectors() {
        let a = arr1(&[1.0f32, 0.0]);
        let b = arr1(&[2.0f32, 0.0]);
        let c = arr1(&[0.0f32, 5.0]);
        assert!((cosine_similarity(a.view(), b.view()).unwrap() - 1.0).abs() < 1e-12);
        assert!(cosine_similarity(a.view(), c.view()).unwrap().abs() < 1e-12);
        assert_eq!(
            cosine_similarity(a.view(), arr1(&[0.0f32, 0.0]).view()),
            None
        );
    }
}
