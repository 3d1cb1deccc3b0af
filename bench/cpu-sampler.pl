#!/usr/bin/perl
# bench_cpu_sample in one process (bench/lib.sh): every second, until STOP exists, appends
# "<epoch ms> <name> <pid> <ticks>" for each JVM started by bin/run (RUN_PID's children: kafka, or
# the jar's name), each PostgreSQL process (postgres:<database after PREFIX>, or postgres:server)
# and the machine (machine 0 <busy ticks>). With ONCE, one sample and out.
use strict;
use warnings;
use Time::HiRes qw(time sleep);

my ($out, $stop, $run_pid, $prefix, $once) = @ARGV;

sub slurp {
  my ($path) = @_;
  open(my $fh, '<', $path) or return undef;
  local $/;
  my $text = <$fh>;
  close($fh);
  return $text;
}

# utime + stime of /proc/PID/stat (the fields after the command's closing parenthesis), and the
# parent's pid.
sub ticks_and_parent {
  my ($pid) = @_;
  my $stat = slurp("/proc/$pid/stat") // return;
  $stat =~ s/^.*\) //s;
  my @f = split(' ', $stat);
  return ($f[11] + $f[12], $f[1], );
}

sub sample {
  my $now = int(time() * 1000);
  my @lines;
  opendir(my $proc, '/proc') or return;
  for my $pid (grep { /^\d+$/ } readdir($proc)) {
    my ($ticks, $parent) = ticks_and_parent($pid);
    next unless defined $ticks;
    my $comm = slurp("/proc/$pid/comm") // next;
    chomp $comm;
    if ($comm eq 'postgres') {
      my $title = slurp("/proc/$pid/cmdline") // next;
      my $db = 'server';
      for my $word (split(/[\s\0]+/, $title)) {
        if (index($word, $prefix) == 0) { $db = substr($word, length($prefix)); last; }
      }
      push @lines, "$now postgres:$db $pid $ticks";
    } elsif ($parent == $run_pid) {
      my $args = slurp("/proc/$pid/cmdline") // next;
      my @args = split(/\0/, $args);
      my $name;
      if (grep { $_ eq 'kafka.Kafka' } @args) {
        $name = 'kafka';
      } else {
        for my $i (0 .. $#args - 1) {
          if ($args[$i] eq '-jar' && $args[$i + 1] =~ m{/target/([^/]+)\.jar$}) { $name = $1; last; }
        }
      }
      push @lines, "$now $name $pid $ticks" if defined $name;
    }
  }
  closedir($proc);
  my $stat = slurp('/proc/stat') // '';
  if ($stat =~ /^cpu\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)/m) {
    push @lines, "$now machine 0 " . ($1 + $2 + $3 + $4 + $5 + $6);
  }
  open(my $fh, '>>', $out) or return;
  print $fh map { "$_\n" } @lines;
  close($fh);
}

if ($once) {
  sample();
  exit 0;
}
until (-e $stop) {
  sample();
  sleep 1;
}
